#pragma once
// How much the input pipeline costs each step: the time the host spends loading data while the
// GPU has no work queued (loading that overlaps GPU work costs nothing), plus host-to-device
// copies from pageable memory, which cannot overlap and stall the copy. Not the loader's
// duration: a slow loader behind a busy GPU is free.

#include <cstdint>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/steps/gpu_activity.h"
#include "analyzer/steps/step_replay.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DataPipelineExposure {
  // Means over the steady (non-warm-up) iterations.
  std::int64_t exposed_ns_per_iteration = 0;
  double exposed_fraction = 0.0;  // of the steady mean iteration time
  std::int64_t loader_ns_per_iteration = 0;  // the loader's own duration, for contrast
  std::int64_t pageable_h2d_ns_per_iteration = 0;
  std::uint64_t pageable_h2d_copies = 0;     // in steady iterations
  // Projected step speedup if the exposed loading were hidden behind GPU work.
  double speedup_if_hidden = 1.0;
  // The same replayed against the host's recorded times: loading on the training threads takes no
  // time, and the step waits for the GPU where the GPU was behind.
  StepReplay replay_if_hidden;
  std::vector<std::int64_t> exposed_ns;  // per iteration, aligned with IterationSummary::iterations
};

// A host range of the data phase not nested in another one: one loading episode.
bool isOutermostData(const trace::Trace& trace, const trace::Range& range);

// `replayer`: the trace's steady steps collected once for every scenario (trace_summary.cpp);
// nullptr: collected here when a replay is needed. `gpu`: the trace's GPU activity, kernels and
// copies of every device, worked out once for this and the AMP projection; nullptr: worked out here.
DataPipelineExposure measureDataPipeline(const trace::Trace& trace, const IterationSummary& iterations,
                                         const StepReplayer* replayer = nullptr, const GpuActivity* gpu = nullptr);

}  // namespace ampscope::analyzer
