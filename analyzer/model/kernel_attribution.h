#pragma once
// Whose kernel is this: one answer per kernel of the run, worked out once (trace_summary.cpp)
// after the verdicts are proven, and read by every table and projection that sums kernels: its
// Tensor Core verdict, where it came from (the op range around its launch, the top-level
// operator, the eligible op, the layer and the group the layer table shows: layer_attribution.h),
// the op whose work it did and that op's row of the per-op model, and the step it was launched in.
//
// Two stages run before it exists and keep their own pass over the kernels: the per-op model
// (op_performance.h), which builds the op rows this table points at, and the proof by rate
// (rate_proof.h), which builds the verdicts it holds. Both read the origins (layer_attribution.h)
// and the verdicts known before the proof.

#include <cstdint>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/correlate/layer_attribution.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/verdicts/tensor_core_evidence.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// One kernel's owners.
struct KernelOwner {
  std::int32_t origin = -1;   // into KernelAttribution::origins; -1: no op range launched it
  std::int32_t verdict = 0;   // into KernelAttribution::verdicts
  std::int32_t op_row = -1;   // into OpPerformance::rows; -1: none
  trace::Index work_op = trace::kNone;  // the op whose work it did: its op row's key (KernelOpRows)
  std::int32_t step = -1;     // into IterationSummary::iterations: the step whose host range holds its launch
  // Its launch (its start, without one) falls in a steady step's host range: the window the
  // projections count (SteadySpans on the host clock).
  bool steady = false;
};

struct KernelAttribution {
  std::vector<KernelOwner> kernels;          // one per trace kernel, in the trace's order
  std::vector<TensorCoreVerdict> verdicts;   // one per kernel name and kind of device (kernel_verdicts.h)
  KernelOrigins origins;                     // one per op range that launched kernels

  const TensorCoreVerdict& verdictOf(std::size_t kernel) const {
    return verdicts[static_cast<std::size_t>(kernels[kernel].verdict)];
  }
  // The kernel's origin; an empty one (no group, no op, kNone everywhere) where no op range launched it.
  const KernelOrigin& originOf(std::size_t kernel) const {
    static const KernelOrigin kNoOrigin;
    const std::int32_t origin = kernels[kernel].origin;
    return origin < 0 ? kNoOrigin : origins.origins[static_cast<std::size_t>(origin)];
  }
  bool groupsOperators() const { return origins.groups_operators; }
};

// `attribution`: the origins the model read (spent: its origins move into the table); `evidence`:
// the device and the verdicts proven by rate; `op_rows`: the per-op model's row and work op per kernel.
KernelAttribution attributeKernels(const trace::Trace& trace, const IterationSummary& iterations,
                                   const TensorCoreEvidence& evidence, LayerAttribution& attribution,
                                   const KernelOpRows& op_rows);

}  // namespace ampscope::analyzer
