#pragma once
// Subcommands that run in a program of their own beside `ampscope` (ampscope-train, ampscope-gui):
// `ampscope` starts it in its own place, so the program's libraries (CUDA, Qt) are loaded only
// by the commands that need them.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace ampscope::cli {

// Declares that command takes everything after it, options and --help included, for the program
// it starts to parse.
void passArgumentsThrough(CLI::App& command);

// Replaces this process by `program` from this program's folder, with `argv` as its arguments
// (argv[0] included). Returns only when it cannot: the exit code, with a line on err that names
// `command` and, when the program is missing, says why (`missing`).
int execProgramBeside(std::string_view program, const std::vector<std::string>& argv, std::string_view command,
                      std::string_view missing, std::ostream& err);

// `ampscope train ARGS`: ampscope-train with "ampscope train ARGS" as its command line (argv0 is
// this program's argv[0], so that messages and the recorded command line read as typed).
int runTrainProgram(const std::string& argv0, const std::vector<std::string>& args, std::ostream& err);

}  // namespace ampscope::cli
