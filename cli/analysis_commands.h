#pragma once
// The subcommands that read traces and write analyses (analyze, diff, report, merge, export), defined once
// for the `ampscope` executable and for the Python package's `python -m ampscope`, which has no
// trainer, collector or GUI.

#include <iosfwd>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "cli/export_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"

namespace ampscope::cli {

// The --gpu option's help, shared by every command that takes it.
inline constexpr const char* kGpuHelp =
    "The GPU (a row of the device table, e.g. H100-SXM, A100, V100, RTX-4090): names the device when the trace does "
    "not; on a CPU run or another GPU's trace, the device to project each op on";

// What `ampscope --help` says the program is.
inline constexpr const char* kAppDescription =
    "ampscope: a profiler and performance advisor for mixed-precision GPU training";

// Sets what every `ampscope` command line shares: exactly one subcommand, defaults in --help.
void configureApp(CLI::App& app);

// The options the subcommands parse into, and the subcommands themselves (owned by the app).
struct AnalysisCommands {
  AnalyzeOptions analyze;
  DiffOptions diff;
  ReportOptions report;
  MergeOptions merge;
  ExportOptions export_trace;  // `export` (a keyword)
  CLI::App* analyze_cmd = nullptr;
  CLI::App* diff_cmd = nullptr;
  CLI::App* report_cmd = nullptr;
  CLI::App* merge_cmd = nullptr;
  CLI::App* export_cmd = nullptr;
};

// Adds analyze, diff, report, merge and export to app; commands must outlive the parse.
void addAnalysisCommands(CLI::App& app, AnalysisCommands& commands);

// After a parse: runs the one that was given and returns its exit code; nullopt when none was.
std::optional<int> runAnalysisCommand(const AnalysisCommands& commands, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
