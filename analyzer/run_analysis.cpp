#include "analyzer/run_analysis.h"

#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {

trace::Result<RunAnalysis> analyzeFile(const std::string& path, std::size_t top_n,
                                       const import::ProgressCallback& progress) {
  auto imported = import::importTrace(path, progress);
  if (!imported) return imported.error();
  RunAnalysis run;
  run.path = path;
  run.trace = std::move(imported).value();
  const CorrelationCounts counts = correlate(run.trace);
  run.summary = summarizeTrace(run.trace, counts, top_n);
  run.recommendations = recommend(run.summary);
  return run;
}

}  // namespace ampscope::analyzer
