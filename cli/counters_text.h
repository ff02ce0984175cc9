#pragma once
// The hardware counters in `ampscope analyze`'s text: a line for the summary's head (what was
// measured, the measured Tensor Core share and the kernel time it covers, and how many kernels'
// names and counters disagree) and a section (the disagreements first, then the measured kernels
// and the sampled series). Both are empty when the trace recorded no counters.

#include <cstddef>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::cli {

std::string countersHeadlineText(const analyzer::TraceSummary& summary);

// top: how many measured kernels to list; the disagreements are listed whole.
std::string countersToText(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::cli
