#pragma once
// What mixed precision can give this model at best: the steady step split into math already on
// FP16/BF16 Tensor Cores, eligible math that is not (FP32 on CUDA cores, or TF32), memory-bound
// and other GPU work, and time the GPU sits idle (host, data, launch gaps). Amdahl's law with a
// speedup per part: projected = 1 / sum(fraction_i / speedup_i). The ceiling is what infinitely
// fast math would give.

#include <string>
#include <vector>

#include "analyzer/device_peaks.h"
#include "analyzer/iterations.h"
#include "analyzer/step_replay.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct StepPart {
  std::string name;
  std::int64_t ns_per_step = 0;
  double fraction = 0.0;
  double speedup = 1.0;  // assumed under AMP
};

struct AmdahlProjection {
  DevicePeaks device;
  std::vector<StepPart> parts;  // sums to the steady step
  double projected_speedup = 1.0;
  double ceiling = 1.0;
  // The same per-kernel speedups replayed against the host's recorded launch times: what the step
  // gains when the host, not the GPU, sets its pace. replay_ceiling: with free math.
  StepReplay replay;
  StepReplay replay_ceiling;
  std::string note;  // why there is no projection, when there is none
};

AmdahlProjection projectAmp(const trace::Trace& trace, const IterationSummary& iterations);

}  // namespace ampscope::analyzer
