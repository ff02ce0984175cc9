#pragma once
// One run, analyzed: the imported and correlated trace, its complete analysis and its
// recommendations, computed once. What every view shows (`ampscope analyze` and `report`, the GUI)
// comes from here; views cut, never recompute.

#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/import/import_options.h"
#include "analyzer/summary/trace_summary.h"
#include "base/stage_callback.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct RunAnalysis {
  std::string path;
  trace::Trace trace;  // correlated: kernels, launches and ranges linked
  TraceSummary summary;
  std::vector<Recommendation> recommendations;  // from the complete summary, largest gain first
};

// Correlates an imported (and so normalised) trace, analyzes it and recommends. `stage_done`
// hears as each stage ends (base/stage_callback.h), summarizeTrace's included.
RunAnalysis analyzeTrace(trace::Trace trace, std::string path, const AnalysisOptions& options = {},
                         const StageCallback& stage_done = {});

// Imports path (any format ampscope reads), then analyzeTrace. Errors name the file and the place.
trace::Result<RunAnalysis> analyzeFile(const std::string& path, const import::ProgressCallback& progress = {},
                                       const AnalysisOptions& options = {});

}  // namespace ampscope::analyzer
