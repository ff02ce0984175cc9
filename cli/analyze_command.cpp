#include "cli/analyze_command.h"

#include <ostream>

#include "analyzer/recommendations.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"
#include "analyzer/trace_summary.h"
#include "cli/progress_bar.h"
#include "cli/summary_json.h"
#include "cli/summary_text.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {

std::optional<analyzer::TraceSummary> summarizeFile(const std::string& path, std::size_t top,
                                                    const std::string& save_profile,
                                                    std::ostream& err, int& exit_code) {
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
  return analyzer::analyzeTrace(std::move(trace), path, top).summary;
}

int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto summary = summarizeFile(options.trace_path, options.top, options.save_profile, err, exit_code);
  if (!summary) return exit_code;
  const std::vector<analyzer::Recommendation> recommendations = analyzer::recommend(*summary);
  out << (options.json ? summaryToJson(*summary, recommendations) : summaryToText(*summary, recommendations));
  return kExitOk;
}

}  // namespace ampscope::cli
