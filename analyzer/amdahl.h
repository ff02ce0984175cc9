#pragma once
// What mixed precision can give this model at best: the steady step split into math already on
// FP16/BF16 Tensor Cores, eligible math that is not (FP32 on CUDA cores, or TF32), memory-bound
// and other GPU work, and time the GPU sits idle (host, data, launch gaps). Amdahl's law with a
// speedup per part: projected = 1 / sum(fraction_i / speedup_i). The ceiling is what infinitely
// fast math would give.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/device_peaks.h"
#include "analyzer/iterations.h"
#include "analyzer/step_replay.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// What a share of the step is, for the projection: each kind has its own speedup under AMP.
enum class StepPartKind : std::uint8_t {
  kTensorCoreMath,    // matrix math already on FP16/BF16 (or FP8/FP4) Tensor Cores
  kEligibleFp32Math,  // Tensor-Core-eligible matrix math in FP32 on CUDA cores
  kEligibleTf32Math,  // eligible matrix math in TF32 on Tensor Cores
  kMemoryBound,       // every other kernel: element-wise, norms, reductions, copies in kernels
  kMemcpy,            // memcpy and memset
  kIdle,              // the GPU has no work: host, data loading, launch gaps
};
inline constexpr std::array<StepPartKind, 6> kStepPartKinds = {
    StepPartKind::kTensorCoreMath, StepPartKind::kEligibleFp32Math, StepPartKind::kEligibleTf32Math,
    StepPartKind::kMemoryBound,    StepPartKind::kMemcpy,           StepPartKind::kIdle};

const char* stepPartKindName(StepPartKind kind);   // "tensor_core_math", ... (JSON, CSV)
const char* stepPartLabel(StepPartKind kind);      // "eligible math in FP32 on CUDA cores", ...
bool isMatrixMath(StepPartKind kind);              // the parts free math would remove

struct StepPart {
  StepPartKind kind = StepPartKind::kIdle;
  std::int64_t ns_per_step = 0;
  double fraction = 0.0;
  double speedup = 1.0;  // assumed under AMP

  const char* label() const { return stepPartLabel(kind); }
};

struct AmdahlProjection {
  DevicePeaks device;
  std::vector<StepPart> parts;  // one per kind, in kStepPartKinds order; sums to the steady step
  double projected_speedup = 1.0;
  double ceiling = 1.0;
  // The same per-kernel speedups replayed against the host's recorded launch times: what the step
  // gains when the host, not the GPU, sets its pace. replay_ceiling: with free math.
  StepReplay replay;
  StepReplay replay_ceiling;
  std::string note;  // why there is no projection, when there is none

  // The part of this kind; nullptr when there is no projection.
  const StepPart* part(StepPartKind kind) const;
};

AmdahlProjection projectAmp(const trace::Trace& trace, const IterationSummary& iterations);

}  // namespace ampscope::analyzer
