#pragma once
// report.html's sections on the per-op performance model: the roofline of the run's ops on its
// device row, and the what-if estimates on another GPU. Each returns one <section>; they read the
// analysis's op table and layer rows and only format them.

#include <cstddef>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

// "Roofline on the V100 SXM2 row": one dot per op with an achieved rate and an arithmetic
// intensity under the device's roofs, or one line saying why no op has both.
std::string rooflineSection(const analyzer::TraceSummary& summary);

// "What-if on H100 SXM (model estimates)": the step's estimated GPU work, the heaviest `top` layer
// rows' estimates per step and the shapes off the multiple of 8; "" when there is no what-if device.
std::string whatIfSection(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::reports
