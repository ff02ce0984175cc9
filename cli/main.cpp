// The `ampscope` command: one subcommand per job. `train` and `gui` run in programs of their own
// beside this one (ampscope-train, ampscope-gui), which it starts in its place.

#include <iostream>

#include <CLI/CLI.hpp>

#include "base/malloc_arenas.h"
#include "cli/analysis_commands.h"
#include "cli/command_line_errors.h"
#include "cli/exit_codes.h"
#include "cli/gui_command.h"
#include "cli/program_beside.h"
#include "cli/record_command.h"

int main(int argc, char** argv) {
  using namespace ampscope::cli;
  ampscope::useOneMallocArena();
  CLI::App app{kAppDescription};
  configureApp(app);

  AnalysisCommands analysis;
  addAnalysisCommands(app, analysis);

  // `train` runs in ampscope-train, beside this program: the trainer's CUDA libraries (cuBLAS
  // alone maps some 150 MB when loaded) stay out of the process that reads and analyzes traces.
  std::vector<std::string> train_args;
  CLI::App* train_cmd = app.add_subcommand(
      "train", "Train a model on Fashion-MNIST with the instrumented AMP engine (on the GPU when there is one; "
               "ampscope train --help lists its options)");
  passArgumentsThrough(*train_cmd);

  std::vector<std::string> gui_args;
  CLI::App* gui_cmd = app.add_subcommand(
      "gui", "Open the desktop app (usage: ampscope gui [TRACE] [--compare TRACE2] [--gpu NAME] [--screenshot FILE.png --tab NAME])");
  // The app parses its own options: `gui --help` is its help (options and tab names).
  passArgumentsThrough(*gui_cmd);

  RecordOptions record;
  CLI::App* record_cmd = app.add_subcommand(
      "record", "Run a program with ampscope's collector injected and write its profile database "
                "(usage: ampscope record [-o FILE] [--kinds LIST] [--metrics tensor[:per-kernel]] -- COMMAND ARGS...)");
  record_cmd->add_option("-o,--output", record.output,
                         "Profile database to write (default record.sqlite); other processes of the program that "
                         "use NVTX or CUDA write FILE with their pid before the extension");
  record_cmd->add_option("--kinds", record.kinds,
                         "What to record: a comma-separated list of kernel, memcpy, memset, memory, runtime, driver, sync, nvtx, or all");
  record_cmd->add_option("--metrics", record.metrics,
                         "Hardware counters to record as well: tensor (the tensor pipe's and the SMs' activity sampled "
                         "over time, CUPTI PM sampling) or tensor:per-kernel (the same per kernel with CUPTI's range "
                         "profiler, which runs kernels one at a time); docs/collector.md");
  record_cmd->add_option("command", record.command, "The program and its arguments (after --)")->required();
  // Everything after the program's name belongs to the program, options included.
  record_cmd->prefix_command();

  if (const auto done = parseCommandLine(app, argc, argv, std::cout, std::cerr)) return *done;
  if (const auto code = runAnalysisCommand(analysis, std::cout, std::cerr)) return *code;
  if (*train_cmd) {
    for (const std::string& word : train_cmd->remaining()) train_args.push_back(word);
    return runTrainProgram(argv[0], train_args, std::cerr);
  }
  if (*gui_cmd) {
    for (const std::string& word : gui_cmd->remaining()) gui_args.push_back(word);
    return runGui(gui_args, std::cerr);
  }
  if (*record_cmd) {
    for (const std::string& word : record_cmd->remaining()) record.command.push_back(word);
    return runRecord(record, std::cout, std::cerr);
  }
  return kExitFailure;
}
