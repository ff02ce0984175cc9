#include "analyzer/run_analysis.h"

#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {

RunAnalysis analyzeTrace(trace::Trace trace, std::string path, const AnalysisOptions& options,
                         const StageCallback& stage_done) {
  RunAnalysis run;
  run.path = std::move(path);
  run.trace = std::move(trace);
  const CorrelationCounts counts = correlate(run.trace, options.threads);
  stageDone(stage_done, "correlated");
  run.summary = summarizeTrace(run.trace, counts, options, stage_done);
  run.recommendations = recommend(run.summary);
  stageDone(stage_done, "recommendations");
  return run;
}

trace::Result<RunAnalysis> analyzeFile(const std::string& path, const import::ProgressCallback& progress,
                                       const AnalysisOptions& options) {
  auto imported =
      import::importTrace(path, {.progress = progress, .threads = options.threads, .window = options.window});
  if (!imported) return imported.error();
  return analyzeTrace(std::move(imported).value(), path, options);
}

}  // namespace ampscope::analyzer
