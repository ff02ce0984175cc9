#pragma once
// report.html's Memory section: the primary device's memory over time, the peak's breakdown by
// category and by layer, the activations saved for backward, and the AMP projection.

#include <cstddef>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

// One <section>; without memory events, one line saying so. top: layers listed per breakdown.
std::string memorySection(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::reports
