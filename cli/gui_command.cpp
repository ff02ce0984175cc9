#include "cli/gui_command.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>

#include <unistd.h>

#include "cli/exit_codes.h"

namespace ampscope::cli {

int runGui(const std::vector<std::string>& args, std::ostream& err) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path gui = exe.parent_path() / "ampscope-gui";
  if (ec || !std::filesystem::exists(gui)) {
    err << "ampscope gui: " << gui.string()
        << " is not there: this build has no GUI (it needs Debian's qt6-base-dev and qt6-charts-dev)\n";
    return kExitBadInput;
  }
  std::vector<char*> argv;
  std::string program = gui.string();
  argv.push_back(program.data());
  std::vector<std::string> copies = args;
  for (std::string& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  err << "ampscope gui: cannot start " << program << ": " << std::strerror(errno) << "\n";
  return kExitBadInput;
}

}  // namespace ampscope::cli
