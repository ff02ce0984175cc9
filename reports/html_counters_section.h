#pragma once
// report.html's Hardware counters section: what the counters measured and the kernel time it
// covers, the kernels whose names and counters disagree (first), the measured kernels, and the
// sampled series. Formatting only: the figures are the analysis's (analyzer/counters/).

#include <cstddef>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

// One <section>; "" when the trace recorded no counters (the page is then as it was without
// them). top: measured kernels listed.
std::string countersSection(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::reports
