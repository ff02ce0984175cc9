#pragma once
// `ampscope analyze`: the summary as a few screens of plain text.

#include <string>

#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"

namespace ampscope::cli {

std::string summaryToText(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations);

}  // namespace ampscope::cli
