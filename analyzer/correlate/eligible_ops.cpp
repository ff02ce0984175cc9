#include "analyzer/correlate/eligible_ops.h"

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/operator_labels.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;

template <typename IsEligible>
Index innermostEligible(const trace::Trace& trace, Index op_range, bool with_shapes, IsEligible is_eligible) {
  for (Index r = op_range; r != kNone; r = trace.ranges[static_cast<std::size_t>(r)].parent) {
    const trace::Range& range = trace.ranges[static_cast<std::size_t>(r)];
    if (with_shapes && range.shapes == trace::StringTable::kEmpty) continue;
    if (is_eligible(range)) return r;
  }
  return kNone;
}

}  // namespace

Index enclosingEligibleOp(const trace::Trace& trace, Index op_range, bool with_shapes) {
  return innermostEligible(trace, op_range, with_shapes,
                           [&](const trace::Range& range) { return isTensorCoreEligibleOp(opName(trace, range)); });
}

bool EligibleOps::isEligible(const trace::Range& range) {
  const trace::StringId name = opNameId(range);
  return eligible_name_(name, [&] { return isTensorCoreEligibleOp(trace_.str(name)); });
}

Index EligibleOps::enclosing(Index op_range, bool with_shapes) {
  return innermostEligible(trace_, op_range, with_shapes, [&](const trace::Range& range) { return isEligible(range); });
}

}  // namespace ampscope::analyzer
