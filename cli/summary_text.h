#pragma once
// `ampscope analyze`: the summary as a few screens of plain text.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::cli {

// top: how many operators, layers and shape checks to list (the analysis holds them all).
std::string summaryToText(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations, std::size_t top);

// The recommendations block (the first 8, largest gain first); empty without any.
std::string recommendationsToText(const std::vector<analyzer::Recommendation>& recommendations);

}  // namespace ampscope::cli
