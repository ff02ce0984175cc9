#pragma once
// The Memory section of `ampscope analyze`: the primary device's peak, what is live at it, the
// activations each step saves for its backward, and what AMP would do to the peak and the batch.

#include <cstddef>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::cli {

// One line for the summary's head: the primary device's peak, or "unknown" without memory events.
std::string memoryHeadlineText(const analyzer::TraceSummary& summary);

// The section (empty without memory events). top: how many layers and steps to list.
std::string memoryToText(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::cli
