#include "cli/gui_command.h"

#include "cli/program_beside.h"

namespace ampscope::cli {

int runGui(const std::vector<std::string>& args, std::ostream& err) {
  constexpr const char* kGui = "ampscope-gui";
  std::vector<std::string> argv{kGui};
  argv.insert(argv.end(), args.begin(), args.end());
  return execProgramBeside(kGui, argv, "gui", "this build has no GUI (it needs Debian's qt6-base-dev and qt6-charts-dev)",
                           err);
}

}  // namespace ampscope::cli
