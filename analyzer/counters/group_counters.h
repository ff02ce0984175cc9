#pragma once
// Profiled ranges per layer (or top-level operator) and pass: each range matched to a launch goes
// to the group of the op range around that launch (correlate/layer_attribution.h), as its kernel
// would in the layer table.

#include <vector>

#include "analyzer/counters/counter_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// In the order the groups first ran; `groups_operators` is set true where the trace names no
// layer (groups are top-level operators).
std::vector<GroupCounterRow> tallyGroups(const trace::Trace& trace, bool& groups_operators);

}  // namespace ampscope::analyzer
