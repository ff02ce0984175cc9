#pragma once
// Each step of one rank split by what held it: compute (the rank's devices ran kernels other than
// collectives, or copies), exposed communication (collectives ran and nothing else did), data
// loading the GPU waited for (DataPipelineExposure), and idle (the rest: the host was late for
// another reason, a launch gap, a synchronisation). The four add up to the step's duration.
// Communication that ran beside compute is counted in compute and shown apart as overlapped.

#include <cstdint>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/steps/data_pipeline.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct StepSplit {
  std::int64_t number = -1;  // as IterationSummary numbers it
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool warmup = false;
  bool whole_window = false;  // the trace has no steps: this one entry spans its GPU records
  std::int64_t compute_ns = 0;
  std::int64_t communication_ns = 0;          // collectives running (union over the rank's devices)
  std::int64_t exposed_communication_ns = 0;  // of which nothing else ran
  std::int64_t data_ns = 0;                   // data loading exposed (GPU idle)
  std::int64_t idle_ns = 0;                   // duration - compute - exposed communication - data, at least 0

  std::int64_t durationNs() const { return end_ns - start_ns; }
  bool operator==(const StepSplit&) const = default;
};

// One entry per iteration, aligned with iterations.iterations; without iterations, one entry
// (number -1, whole_window) from the first GPU record's start to the last one's end, or none
// without GPU records. Expects a sorted trace.
std::vector<StepSplit> splitSteps(const trace::Trace& trace, const IterationSummary& iterations,
                                  const DataPipelineExposure& data);

}  // namespace ampscope::analyzer
