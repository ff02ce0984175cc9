#pragma once
// Which layer each kernel ran for, and under which op, call and shapes: the grouping the layer
// table and the kernel table share, so that a layer row's kernels are exactly that row's. A trace
// that names no layers (Kineto without module frames, nvprof without PyProf call stacks) is
// grouped by top-level operator instead, so the layer table is never empty for a GPU trace.

#include <string>
#include <string_view>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyzer/correlate/eligible_ops.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Names are views into the trace's strings or the attribution's own labels: valid while both live.
struct KernelOrigin {
  std::string_view group;                   // the layer (or top-level operator); empty: none
  trace::Index call = trace::kNone;         // the outermost range of the group: one call of it
  std::string_view op;                      // the op the kernel ran under, as the user wrote it
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
  // Valid until the next call (origins of new op ranges may move the others).
  const KernelOrigin& of(const trace::Kernel& kernel);

 private:
  KernelOrigin originOf(trace::Index op_range);
  // operatorLabel of a top-level call, kept here when it is composed rather than a trace string.
  std::string_view labelOf(trace::Index call);
  const trace::Range& range(trace::Index index) const { return trace_.ranges[static_cast<std::size_t>(index)]; }

  const trace::Trace& trace_;
  EligibleOps eligible_ops_;
  bool by_operator_ = true;
  KernelOrigin unattributed_;
  // Memoised by op range: origins_[origin_of_[op_range]] (-1: not yet). A vector indexed by range,
  // not a hash map: this runs once per kernel of a run that may launch millions.
  std::vector<std::int32_t> origin_of_;
  std::vector<KernelOrigin> origins_;
  std::unordered_map<trace::Index, std::string> composed_labels_;  // by call range; nodes do not move
};

}  // namespace ampscope::analyzer
