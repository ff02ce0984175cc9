#pragma once
// Which layer each kernel ran for, and under which op, call and shapes: the grouping the layer
// table and the kernel table share, so that a layer row's kernels are exactly that row's. A trace
// that names no layers (Kineto without module frames, nvprof without PyProf call stacks) is
// grouped by top-level operator instead, so the layer table is never empty for a GPU trace.

#include <string>
#include <unordered_map>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct KernelOrigin {
  std::string group;                        // the layer (or top-level operator); empty: none
  trace::Index call = trace::kNone;         // the outermost range of the group: one call of it
  std::string op;                           // the op the kernel ran under, as the user wrote it
  trace::Index eligible_op = trace::kNone;  // the enclosing Tensor-Core-eligible op
  trace::Index shaped_op = trace::kNone;    // the enclosing eligible op with recorded shapes
  trace::Phase phase = trace::Phase::kUnknown;
};

class LayerAttribution {
 public:
  // Keeps a reference to trace (correlated): it must outlive this object and stay unchanged.
  explicit LayerAttribution(const trace::Trace& trace);

  // True when the trace names no layer for any kernel: groups are top-level operators.
  bool groupsOperators() const { return by_operator_; }
  // Valid while this object lives.
  const KernelOrigin& of(const trace::Kernel& kernel);

 private:
  KernelOrigin originOf(trace::Index op_range) const;
  const trace::Range& range(trace::Index index) const { return trace_.ranges[static_cast<std::size_t>(index)]; }

  const trace::Trace& trace_;
  bool by_operator_ = true;
  KernelOrigin unattributed_;
  std::unordered_map<trace::Index, KernelOrigin> origins_;  // by op range, memoised
};

}  // namespace ampscope::analyzer
