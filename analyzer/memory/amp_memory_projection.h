#pragma once
// The peak under autocast, projected from a run that did not use it, and the batch that fits
// before and after (docs/memory.md, "What AMP does to the peak").

#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/core/device_table.h"
#include "analyzer/memory/block_origins.h"
#include "analyzer/memory/memory_analysis.h"
#include "analyzer/memory/memory_blocks.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// `events`, `origins` and `measured`: the device projected. `fit_device`: the GPU whose memory the
// batch must fit in when not the recorded one (null: the recorded one).
AmpMemoryProjection projectAmpMemory(const trace::Trace& trace, const IterationSummary& iterations,
                                     const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                     const DeviceMemory& measured, const DeviceSpec* fit_device,
                                     HalfPrecisionRecipe recipe);

// The first dimension of the first input of the first Tensor-Core-eligible forward op with shapes
// (in the first steady step where there are steps): the batch, for a model whose matrix ops take
// batch-first inputs (PyTorch's convention); nullopt where no such op records shapes.
std::optional<std::int64_t> recordedBatch(const trace::Trace& trace, const IterationSummary& iterations);

}  // namespace ampscope::analyzer
