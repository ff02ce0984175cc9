#include "cli/analyze_command.h"

#include <ostream>

#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/trace_summary.h"
#include "cli/progress_bar.h"
#include "cli/summary_json.h"
#include "cli/summary_text.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {

int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  ProgressBar progress("reading " + options.trace_path);
  auto imported = analyzer::import::importTrace(
      options.trace_path, [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); });
  progress.finish();
  if (!imported) {
    err << "ampscope: " << imported.error().message << "\n";
    return kExitBadInput;
  }
  trace::Trace& trace = *imported;
  if (!options.save_profile.empty()) {
    if (trace::Status saved = trace::db::writeProfile(options.save_profile, trace); !saved) {
      err << "ampscope: " << saved.error().message << "\n";
      return kExitFailure;
    }
  }
  const analyzer::CorrelationCounts counts = analyzer::correlate(trace);
  const analyzer::TraceSummary summary = analyzer::summarizeTrace(trace, counts, options.top);
  out << (options.json ? summaryToJson(summary) : summaryToText(summary));
  return kExitOk;
}

}  // namespace ampscope::cli
