#pragma once
// Who allocated each block and what it holds: the layer and op around the allocation, the step it
// was made in, and its category, from the phase of the op that allocated it and of the op that
// freed it (docs/memory.md, "Categories").

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/memory/memory_analysis.h"
#include "analyzer/memory/memory_blocks.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct BlockOrigin {
  std::string layer;                           // the layer, else the top-level operator; "" unknown
  trace::Phase pass = trace::Phase::kUnknown;  // of the allocating op
  bool fp32_under_autocast = false;            // autocast keeps the allocating op in FP32
  std::int32_t step = -1;                      // into IterationSummary::iterations; -1: outside every step
  MemoryCategory category = MemoryCategory::kUnattributed;
};

// Whether a block's bytes grow with the batch: what a step's ops make of its inputs.
bool scalesWithBatch(MemoryCategory category);

// The step whose host range holds time_ns; -1 for none. A trace without steps is one step.
std::int32_t stepAt(const IterationSummary& iterations, std::int64_t time_ns);

// One origin per block of device, in its block order.
std::vector<BlockOrigin> originsOf(const trace::Trace& trace, const IterationSummary& iterations,
                                   const DeviceEvents& device);

}  // namespace ampscope::analyzer
