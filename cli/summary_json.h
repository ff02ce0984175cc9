#pragma once
// `ampscope analyze --json`: the summary as a JSON document. The key names are an interface:
// scripts depend on them, so add keys, never rename them.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"

namespace ampscope::cli {

// top cuts the ranked lists only (reports/report_json.h says which).
std::string summaryToJson(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations, std::size_t top);

}  // namespace ampscope::cli
