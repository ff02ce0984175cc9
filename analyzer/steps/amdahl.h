#pragma once
// What mixed precision can give this model: the steady step split into math already on FP16/BF16
// Tensor Cores, eligible math that is not (FP32 on CUDA cores, or TF32), memory-bound and other
// GPU work, collectives, copies, and time the GPU sits idle (host, data, launch gaps). Each
// part's speedup is the sum of its ops' predictions (op_performance.h: shape-aware for math, half
// the bytes only where autocast halves them, 1x for collectives), so the projection is the sum of
// the ops: projected = 1 / sum(fraction_i / speedup_i). The ceiling is what infinitely fast math
// would give. A trace without steps is projected over its window of GPU work, and says so.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/core/device_table.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/steps/gpu_activity.h"
#include "analyzer/steps/step_replay.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// What a share of the step is, for the projection: each kind has its own speedup under AMP.
enum class StepPartKind : std::uint8_t {
  kTensorCoreMath,    // matrix math already on FP16/BF16 (or FP8/FP4) Tensor Cores
  kEligibleFp32Math,  // Tensor-Core-eligible matrix math in FP32 on CUDA cores
  kEligibleTf32Math,  // eligible matrix math in TF32 on Tensor Cores
  kUnknownMath,       // matrix kernels whose Tensor Core use is unknown (no rule or evidence places
                      // them): projected at 1x, since they may already run FP16/BF16 Tensor Cores
  kMemoryBound,       // every other kernel: element-wise, norms, reductions, copies in kernels
  kCommunication,     // collectives (NCCL): FP32 gradient reductions stay FP32 under AMP
  kMemcpy,            // memcpy and memset
  kIdle,              // the GPU has no work: host, data loading, launch gaps
};
inline constexpr std::array<StepPartKind, 8> kStepPartKinds = {
    StepPartKind::kTensorCoreMath, StepPartKind::kEligibleFp32Math, StepPartKind::kEligibleTf32Math,
    StepPartKind::kUnknownMath,    StepPartKind::kMemoryBound,      StepPartKind::kCommunication,
    StepPartKind::kMemcpy,         StepPartKind::kIdle};

const char* stepPartKindName(StepPartKind kind);   // "tensor_core_math", ... (JSON, CSV)
const char* stepPartLabel(StepPartKind kind);      // "eligible math in FP32 on CUDA cores", ...
bool isMatrixMath(StepPartKind kind);              // the parts free math would remove

struct StepPart {
  StepPartKind kind = StepPartKind::kIdle;
  std::int64_t ns_per_step = 0;
  double fraction = 0.0;
  double speedup = 1.0;  // under AMP: the sum of its ops' times over the sum of their predictions

  const char* label() const { return stepPartLabel(kind); }
};

struct AmdahlProjection {
  DeviceSpec device;  // the row projected on (empty name: none)
  // True: parts are per steady step. False: the trace has no steps, and the parts, the gains and
  // the speedups are over its window of GPU work (window_ns), which the views say.
  bool per_step = true;
  std::int64_t window_ns = 0;   // the steady mean step, or the trace's window of GPU work
  std::vector<StepPart> parts;  // one per kind, in kStepPartKinds order; sums to the window
  double projected_speedup = 1.0;
  double ceiling = 1.0;
  // The same per-kernel speedups replayed against the host's recorded launch times: what the step
  // gains when the host, not the GPU, sets its pace. replay_ceiling: with free math.
  StepReplay replay;
  StepReplay replay_ceiling;
  std::string note;  // why there is no projection, or, without steps, what window it covers

  // AMP's speedup at the host's real pace: the replay (blocked time given back to the host) where
  // there is one, never above the projection; the projection otherwise.
  double reachableSpeedup() const {
    return replay.done ? std::min(projected_speedup, replay.speedup) : projected_speedup;
  }

  // The part of this kind; nullptr when there is no projection.
  const StepPart* part(StepPartKind kind) const;
};

// `ops`: the run's per-op model (its device is the one projected on); `kernels`: the per-kernel
// table (each kernel's verdict, op row and whether a steady step launched it); `replayer`: the trace's steady steps collected once for every scenario
// (trace_summary.cpp), nullptr: collected here; `gpu`: the trace's GPU activity, kernels and copies
// of every device (trace_summary.cpp), nullptr: worked out here.
AmdahlProjection projectAmp(const trace::Trace& trace, const IterationSummary& iterations, const OpPerformance& ops,
                            const KernelAttribution& kernels, const StepReplayer* replayer = nullptr,
                            const GpuActivity* gpu = nullptr);

}  // namespace ampscope::analyzer
