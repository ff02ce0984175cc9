#include "analyzer/run_analysis.h"

#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {

RunAnalysis analyzeTrace(trace::Trace trace, std::string path) {
  RunAnalysis run;
  run.path = std::move(path);
  run.trace = std::move(trace);
  const CorrelationCounts counts = correlate(run.trace);
  run.summary = summarizeTrace(run.trace, counts);
  run.recommendations = recommend(run.summary);
  return run;
}

trace::Result<RunAnalysis> analyzeFile(const std::string& path, const import::ProgressCallback& progress) {
  auto imported = import::importTrace(path, progress);
  if (!imported) return imported.error();
  return analyzeTrace(std::move(imported).value(), path);
}

}  // namespace ampscope::analyzer
