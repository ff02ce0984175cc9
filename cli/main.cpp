// The `ampscope` command: one binary, one subcommand per job.

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/analyze_command.h"
#include "cli/diff_command.h"
#include "cli/report_command.h"

int main(int argc, char** argv) {
  using namespace ampscope::cli;
  CLI::App app{"ampscope: a profiler and performance advisor for mixed-precision GPU training"};
  app.require_subcommand(1);

  AnalyzeOptions analyze;
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "Read a trace (PyTorch profiler JSON/.gz, Nsight Systems or nvprof SQLite, "
                 "ampscope profile) and print a summary");
  analyze_cmd->add_option("trace", analyze.trace_path, "Trace file")->required();
  analyze_cmd->add_flag("--json", analyze.json, "Print the summary as JSON on stdout");
  analyze_cmd->add_option("--top", analyze.top, "How many operators, layers and kernels to list")
      ->check(CLI::Range(1, 1000));
  analyze_cmd->add_option("--save-profile", analyze.save_profile,
                          "Also write the imported trace as an ampscope profile database");

  DiffOptions diff;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "Compare two runs of one model (e.g. FP32 and AMP, or 0 and 4 data-loader workers): "
              "measured speedup per step and per operator beside A's projections");
  diff_cmd->add_option("a", diff.baseline_path, "Baseline trace (A)")->required();
  diff_cmd->add_option("b", diff.candidate_path, "Changed run's trace (B)")->required();
  diff_cmd->add_flag("--json", diff.json, "Print the comparison as JSON on stdout");

  ReportOptions report;
  CLI::App* report_cmd = app.add_subcommand(
      "report", "Write the analysis of a trace as report.html, report.md, report.json and CSV files");
  report_cmd->add_option("trace", report.trace_path, "Trace file")->required();
  report_cmd->add_option("--out", report.out_dir, "Folder to write the report into")->required();
  report_cmd->add_option("--top", report.top, "How many operators, layers and shapes to list")
      ->check(CLI::Range(1, 1000));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (*analyze_cmd) return runAnalyze(analyze, std::cout, std::cerr);
  if (*diff_cmd) return runDiff(diff, std::cout, std::cerr);
  if (*report_cmd) return runReport(report, std::cout, std::cerr);
  return kExitFailure;
}
