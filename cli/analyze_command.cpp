#include "cli/analyze_command.h"

#include <ostream>

#include "analyzer/core/device_table.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"
#include "cli/job_input.h"
#include "cli/job_text.h"
#include "cli/progress_bar.h"
#include "cli/summary_text.h"
#include "reports/job_json.h"
#include "reports/report_json.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {

std::string checkGpuName(const std::string& name) {
  if (analyzer::findDevice(name)) return {};
  return "unknown GPU \"" + name + "\"; known: " + analyzer::deviceNamesList();
}

std::optional<analyzer::RunAnalysis> analyzeFileForCli(const std::string& path, const std::string& save_profile,
                                                       const analyzer::AnalysisOptions& options, std::ostream& err,
                                                       int& exit_code) {
  ProgressBar progress("reading " + path);
  auto imported = analyzer::import::importTrace(
      path, {.progress = [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); },
             .threads = options.threads,
             .window = options.window});
  progress.finish();
  if (!imported) {
    err << "ampscope: " << imported.error().message << "\n";
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  trace::Trace& trace = *imported;
  if (!save_profile.empty()) {
    if (trace::Status saved = trace::db::writeProfile(save_profile, trace); !saved) {
      err << "ampscope: " << saved.error().message << "\n";
      exit_code = kExitFailure;
      return std::nullopt;
    }
  }
  exit_code = kExitOk;
  return analyzer::analyzeTrace(std::move(trace), path, options);
}

std::string analysisJson(const CliAnalysis& analysis, std::size_t top) {
  if (analysis.job) return reports::formatJsonDocument(reports::jobToJsonDocument(*analysis.job));
  const analyzer::RunAnalysis& run = *analysis.run;
  // The run's document, plus the compact result that `merge` reads back (the map step).
  nlohmann::ordered_json document = reports::summaryToJsonDocument(run.summary, run.recommendations, top);
  document["rank_result"] = reports::rankResultToJson(analysis.rank_result);
  return reports::formatJsonDocument(document);
}

int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const InputOptions input{.save_profile = options.save_profile, .analysis = {options.gpu, options.threads, options.window}, .rank = options.rank};
  const auto analysis = analyzeInputsForCli(options.trace_paths, input, err, exit_code);
  if (!analysis) return exit_code;
  if (options.json) {
    out << analysisJson(*analysis, options.top);
  } else if (analysis->job) {
    out << jobToText(*analysis->job, options.top);
  } else {
    out << summaryToText(analysis->run->summary, analysis->run->recommendations, options.top);
  }
  return kExitOk;
}

}  // namespace ampscope::cli
