#pragma once
// `ampscope analyze`: the summary as a few screens of plain text.

#include <string>

#include "analyzer/trace_summary.h"

namespace ampscope::cli {

std::string summaryToText(const analyzer::TraceSummary& summary);

// "1.234 ms", "56.7 us": durations for people.
std::string formatDuration(std::int64_t ns);

}  // namespace ampscope::cli
