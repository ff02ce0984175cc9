#include "cli/analyze_command.h"

#include <ostream>

#include "analyzer/device_table.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"
#include "cli/progress_bar.h"
#include "cli/summary_json.h"
#include "cli/summary_text.h"
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
      path, [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); });
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

int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto run = analyzeFileForCli(options.trace_path, options.save_profile, {options.gpu}, err, exit_code);
  if (!run) return exit_code;
  out << (options.json ? summaryToJson(run->summary, run->recommendations, options.top)
                       : summaryToText(run->summary, run->recommendations, options.top));
  return kExitOk;
}

}  // namespace ampscope::cli
