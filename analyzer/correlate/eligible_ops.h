#pragma once
// Whose matrix work is a kernel: the innermost Tensor-Core-eligible op (matmul, linear, addmm,
// convolution...) around the op range that launched it. That op's shapes decide the GEMM a
// kernel computes, the multiple it should meet and the work the model gives it.

#include "analyzer/core/memo_by_id.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// The innermost range at or above op_range that is a Tensor-Core-eligible op (and, when
// with_shapes, has recorded input shapes); kNone when there is none.
trace::Index enclosingEligibleOp(const trace::Trace& trace, trace::Index op_range, bool with_shapes);

// enclosingEligibleOp for every kernel of a run: a run has millions of op ranges but a few
// hundred op names, so whether a name is eligible (isTensorCoreEligibleOp) is decided once per
// name. Not for concurrent use: each stage keeps its own.
class EligibleOps {
 public:
  // Keeps a reference to trace (correlated): it must outlive this object and stay unchanged.
  explicit EligibleOps(const trace::Trace& trace) : trace_(trace) {}

  trace::Index enclosing(trace::Index op_range, bool with_shapes);
  bool isEligible(const trace::Range& range);

 private:
  const trace::Trace& trace_;
  NameTest eligible_name_;
};

}  // namespace ampscope::analyzer
