#include "cli/program_beside.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.h"

namespace ampscope::cli {

void passArgumentsThrough(CLI::App& command) {
  command.allow_extras();
  command.prefix_command();
  command.set_help_flag();
}

int execProgramBeside(std::string_view program, const std::vector<std::string>& argv, std::string_view command,
                      std::string_view missing, std::ostream& err) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path path = exe.parent_path() / program;
  if (ec || !std::filesystem::exists(path)) {
    err << "ampscope " << command << ": " << path.string() << " is not there: " << missing << "\n";
    return kExitBadInput;
  }
  std::vector<std::string> copies = argv;
  std::vector<char*> pointers;
  for (std::string& arg : copies) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  execv(path.c_str(), pointers.data());
  err << "ampscope " << command << ": cannot start " << path.string() << ": " << std::strerror(errno) << "\n";
  return kExitBadInput;
}

int runTrainProgram(const std::string& argv0, const std::vector<std::string>& args, std::ostream& err) {
  std::vector<std::string> argv{argv0, "train"};
  argv.insert(argv.end(), args.begin(), args.end());
  return execProgramBeside("ampscope-train", argv, "train", "this build is incomplete (build the ampscope-train target)",
                           err);
}

}  // namespace ampscope::cli
