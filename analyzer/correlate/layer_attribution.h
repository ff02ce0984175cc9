#pragma once
// Whose work each op range's kernels are, from the correlated trace alone: the op range around
// their launch, its top-level operator, the Tensor-Core-eligible op around it, its layer, and the
// group, call and op the layer table and the kernel table show. A trace that names no layers
// (Kineto without module frames, nvprof without PyProf call stacks) is grouped by top-level
// operator instead, so the layer table is never empty for a GPU trace.
//
// The origin part of the one per-kernel table (model/kernel_attribution.h): worked out once per
// op range that launched kernels, before the verdicts and the model, which read it too.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/correlate/eligible_ops.h"
#include "analyzer/core/memo_by_id.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Where the kernels of one op range came from. Indices are into trace::Trace::ranges; labels into
// KernelOrigins::labels, so that the origins outlive neither the trace's strings nor a builder.
struct KernelOrigin {
  trace::Index op_range = trace::kNone;      // the innermost op range around the launch (Kernel::op_range)
  trace::Index top_level_op = trace::kNone;  // its outermost operator (topLevelOperator): the operator table's row
  trace::Index eligible_op = trace::kNone;   // the innermost Tensor-Core-eligible op at or above op_range
  trace::Index shaped_op = trace::kNone;     // ... that has recorded shapes
  trace::StringId layer = trace::StringTable::kEmpty;  // the layer the range names; kEmpty: none
  std::int32_t group = -1;                   // the layer, or the top-level operator (groups_operators); -1: none
                                             // (as is a label whose text is empty)
  trace::Index call = trace::kNone;          // the outermost range of the group: one call of it
  std::int32_t op = -1;                      // the op the kernel ran under, as the user wrote it; -1: none
  trace::Phase phase = trace::Phase::kUnknown;
};

struct KernelOrigins {
  // True when the trace names no layer for any kernel: groups are top-level operators.
  bool groups_operators = true;
  std::vector<KernelOrigin> origins;  // one per op range that launched kernels, in the order first met
  std::vector<std::string> labels;    // group and op names, each text once

  std::string_view label(std::int32_t index) const {
    return index < 0 ? std::string_view() : std::string_view(labels[static_cast<std::size_t>(index)]);
  }
};

// Builds the origins as kernels ask for them, one per op range.
class LayerAttribution {
 public:
  // Keeps a reference to trace (correlated): it must outlive this object and stay unchanged.
  explicit LayerAttribution(const trace::Trace& trace);

  // The index into origins() of the origin of op_range's kernels, worked out the first time it is
  // asked for; -1 for kNone (a kernel no op range launched).
  std::int32_t originOf(trace::Index op_range);
  const KernelOrigins& origins() const { return origins_; }
  // Hands the origins over; this object is spent.
  KernelOrigins take() { return std::move(origins_); }

 private:
  KernelOrigin build(trace::Index op_range);
  std::int32_t labelOfName(trace::StringId name);
  std::int32_t labelOfText(std::string text);
  // The label of a top-level call: its op name, or its composed operatorLabel (a trainer layer op).
  std::int32_t labelOfCall(trace::Index call);
  const trace::Range& range(trace::Index index) const { return trace_.ranges[static_cast<std::size_t>(index)]; }

  const trace::Trace& trace_;
  EligibleOps eligible_ops_;
  KernelOrigins origins_;
  // Memoised by op range: a vector indexed by range, not a hash map: this runs once per kernel of
  // a run that may launch millions.
  std::vector<std::int32_t> origin_of_range_;
  IndexById label_of_name_;                                  // by string id
  std::unordered_map<trace::Index, std::int32_t> label_of_call_;  // composed labels, by call range
  std::unordered_map<std::string, std::int32_t> label_of_text_;
};

}  // namespace ampscope::analyzer
