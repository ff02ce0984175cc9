#pragma once
// `ampscope analyze`: the summary as a few screens of plain text.

#include <string>

#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"

namespace ampscope::cli {

std::string summaryToText(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations);

// "1.234 ms", "56.7 us": durations for people.
std::string formatDuration(std::int64_t ns);

}  // namespace ampscope::cli
