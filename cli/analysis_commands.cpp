#include "cli/analysis_commands.h"

#include <ostream>

namespace ampscope::cli {

namespace {

// What analyze, report and export take alike: the traces (one run, or a job's ranks), --rank N of
// a job (rank_help says what it gives), and --threads for reading a job's files.
void addTraceInputs(CLI::App* command, std::vector<std::string>& paths, std::optional<std::int32_t>& rank,
                    unsigned& threads, std::optional<analyzer::ReadWindow>& window, const char* rank_help) {
  command->add_option("trace", paths, "Trace files or folders (several: one job, a rank each)")->required();
  command->add_option("--rank", rank, rank_help)->check(CLI::Range(0, 1 << 24));
  command->add_option("--threads", threads, "Threads to use: a job's traces read at once, one trace's events parsed at once (0: every hardware thread)")
      ->check(CLI::Range(0, 1024));
  command
      ->add_option_function<std::string>(
          "--window",
          [&window](const std::string& text) {
            auto parsed = analyzer::parseReadWindow(text);
            if (!parsed) throw CLI::ValidationError(parsed.error().message);
            window = *parsed;
          },
          "Read only part of the recording: START:END in seconds from its start (an Nsight Systems export's "
          "session start, as Nsight shows it; else the first record), or step:N-M, the steps numbered N to M by "
          "their step ranges. Nsight Systems exports skip the rest in SQLite: a few steps of a large export read "
          "in a fraction of the time and memory")
      ->type_name("START:END|step:N-M");
}

}  // namespace

void configureApp(CLI::App& app) {
  app.require_subcommand(1);
  // --help shows every option's default (subcommands inherit this).
  app.option_defaults()->always_capture_default();
}

void addAnalysisCommands(CLI::App& app, AnalysisCommands& commands) {
  AnalyzeOptions& analyze = commands.analyze;
  commands.analyze_cmd = app.add_subcommand(
      "analyze", "Read a trace (PyTorch profiler JSON/.gz, Nsight Systems or nvprof SQLite, "
                 "ampscope profile) and print a summary; several files or a folder are one distributed job");
  CLI::App* analyze_cmd = commands.analyze_cmd;
  addTraceInputs(analyze_cmd, analyze.trace_paths, analyze.rank, analyze.threads, analyze.window,
                 "Of a job: the full analysis of this rank");
  analyze_cmd->add_flag("--json", analyze.json, "Print the summary as JSON on stdout");
  analyze_cmd->add_option("--top", analyze.top, "How many operators, layers and kernels to list")
      ->check(CLI::Range(1, 1000));
  analyze_cmd->add_option("--save-profile", analyze.save_profile,
                          "Also write the imported trace as an ampscope profile database");
  analyze_cmd->add_option("--gpu", analyze.gpu, kGpuHelp)->check(checkGpuName);

  DiffOptions& diff = commands.diff;
  commands.diff_cmd = app.add_subcommand(
      "diff", "Compare two runs of one model (e.g. FP32 and AMP, or 0 and 4 data-loader workers): "
              "the change B made, the measured speedup beside what A's analysis predicted for it, "
              "overall and per op call shape");
  CLI::App* diff_cmd = commands.diff_cmd;
  diff_cmd->add_option("a", diff.baseline_path, "Baseline trace (A)")->required();
  diff_cmd->add_option("b", diff.candidate_path, "Changed run's trace (B)")->required();
  diff_cmd->add_flag("--json", diff.json, "Print the comparison as JSON on stdout");
  diff_cmd->add_option("--top", diff.top, "How many op call shapes and layers to list (JSON lists them all)")
      ->check(CLI::Range(1, 1000));
  diff_cmd->add_option("--gpu", diff.gpu, kGpuHelp)->check(checkGpuName);

  ReportOptions& report = commands.report;
  commands.report_cmd = app.add_subcommand(
      "report", "Write the analysis of a trace as report.html, report.md, report.json and CSV files");
  CLI::App* report_cmd = commands.report_cmd;
  addTraceInputs(report_cmd, report.trace_paths, report.rank, report.threads, report.window,
                 "Of a job: the full report of this rank");
  report_cmd->add_option("--out", report.out_dir, "Folder to write the report into")->required();
  report_cmd->add_option("--top", report.top, "How many operators, layers and shapes to list")
      ->check(CLI::Range(1, 1000));
  report_cmd->add_option("--gpu", report.gpu, kGpuHelp)->check(checkGpuName);

  MergeOptions& merge = commands.merge;
  commands.merge_cmd = app.add_subcommand(
      "merge", "Analyze a distributed job from its ranks' results (the reduce step): each input is the output of "
               "`ampscope analyze RANK --json` or of an earlier merge");
  CLI::App* merge_cmd = commands.merge_cmd;
  merge_cmd->add_option("results", merge.inputs, "JSON results of analyze --json or merge --json")->required();
  merge_cmd->add_flag("--json", merge.json, "Print the job as JSON on stdout");
  merge_cmd->add_option("--out", merge.out_dir, "Also write the job's report into this folder");
  merge_cmd->add_option("--top", merge.top, "How many collective families to list")->check(CLI::Range(1, 1000));

  ExportOptions& export_trace = commands.export_trace;
  commands.export_cmd = app.add_subcommand(
      "export", "Write the trace with ampscope's findings (Tensor Core verdicts, layers, rates, launch flows, queue "
                "depth, per-step counters) as a Chrome JSON trace for ui.perfetto.dev or chrome://tracing; "
                "a job gets one process per rank on its common clock");
  CLI::App* export_cmd = commands.export_cmd;
  addTraceInputs(export_cmd, export_trace.trace_paths, export_trace.rank, export_trace.threads, export_trace.window,
                 "Of a job: only this rank");
  export_cmd->add_option("--perfetto", export_trace.perfetto, "The JSON trace to write (written whole or not at all)")
      ->required();
  export_cmd->add_option("--gpu", export_trace.gpu, kGpuHelp)->check(checkGpuName);
}

std::optional<int> runAnalysisCommand(const AnalysisCommands& commands, std::ostream& out, std::ostream& err) {
  if (*commands.analyze_cmd) return runAnalyze(commands.analyze, out, err);
  if (*commands.diff_cmd) return runDiff(commands.diff, out, err);
  if (*commands.merge_cmd) return runMerge(commands.merge, out, err);
  if (*commands.report_cmd) return runReport(commands.report, out, err);
  if (*commands.export_cmd) return runExport(commands.export_trace, out, err);
  return std::nullopt;
}

}  // namespace ampscope::cli
