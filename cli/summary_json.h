#pragma once
// `ampscope analyze --json`: the summary as a JSON document. The key names are an interface:
// scripts depend on them, so add keys, never rename them.

#include <string>

#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"

namespace ampscope::cli {

std::string summaryToJson(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations);

}  // namespace ampscope::cli
