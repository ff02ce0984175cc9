#pragma once
// report.json, and the document behind `ampscope analyze --json`: every key of the analyze
// output under the same name (scripts depend on them: add keys, never rename), plus layers[],
// kernels_by_name[] ("kernels" already holds the counts) and recommendations[].
// Key by key: docs/analyze_json.md and docs/reports.md.

#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"

namespace ampscope::reports {

nlohmann::ordered_json summaryToJsonDocument(
    const analyzer::TraceSummary& summary,
    const std::vector<analyzer::Recommendation>& recommendations);

}  // namespace ampscope::reports
