#pragma once
// One run, analyzed: the imported and correlated trace, its summary and its recommendations.
// What `ampscope analyze` prints and what the GUI shows come from here.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/import/import_options.h"
#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct RunAnalysis {
  std::string path;
  trace::Trace trace;  // correlated: kernels, launches and ranges linked
  TraceSummary summary;
  std::vector<Recommendation> recommendations;
};

// Correlates an imported trace and summarizes it with top_n entries per list.
RunAnalysis analyzeTrace(trace::Trace trace, std::string path, std::size_t top_n);

// Imports path (any format ampscope reads), then analyzeTrace. Errors name the file and the place.
trace::Result<RunAnalysis> analyzeFile(const std::string& path, std::size_t top_n,
                                       const import::ProgressCallback& progress = {});

}  // namespace ampscope::analyzer
