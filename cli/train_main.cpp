// ampscope-train: `ampscope train`, which `ampscope` starts in its place (cli/program_beside.h).
// Its command line reads "ampscope train ..." as typed, so help and messages are the same.

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/analysis_commands.h"
#include "cli/command_line_errors.h"
#include "cli/exit_codes.h"
#include "cli/train_command.h"

int main(int argc, char** argv) {
  using namespace ampscope::cli;
  CLI::App app{kAppDescription};
  configureApp(app);
  TrainOptions train;
  CLI::App* train_cmd = addTrainCommand(app, train);
  if (const auto done = parseCommandLine(app, argc, argv, std::cout, std::cerr)) return *done;
  if (!*train_cmd) {
    std::cerr << "ampscope-train: runs `ampscope train ...` (ampscope train --help)\n";
    return kExitBadInput;
  }
  for (int i = 0; i < argc; ++i) train.command_line += (i > 0 ? " " : "") + std::string(argv[i]);
  return runTrain(std::move(train), std::cout, std::cerr);
}
