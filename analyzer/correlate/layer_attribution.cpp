#include "analyzer/correlate/layer_attribution.h"

#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/correlate/eligible_ops.h"

namespace ampscope::analyzer {

LayerAttribution::LayerAttribution(const trace::Trace& trace)
    : trace_(trace), eligible_ops_(trace), origin_of_(trace.ranges.size(), -1) {
  for (const trace::Kernel& kernel : trace.kernels) {
    if (kernel.op_range != trace::kNone && range(kernel.op_range).layer != trace::StringTable::kEmpty) {
      by_operator_ = false;
      break;
    }
  }
}

const KernelOrigin& LayerAttribution::of(const trace::Kernel& kernel) {
  if (kernel.op_range == trace::kNone) return unattributed_;
  std::int32_t& index = origin_of_[static_cast<std::size_t>(kernel.op_range)];
  if (index < 0) {
    KernelOrigin origin = originOf(kernel.op_range);
    index = static_cast<std::int32_t>(origins_.size());
    origins_.push_back(origin);
  }
  return origins_[static_cast<std::size_t>(index)];
}

std::string_view LayerAttribution::labelOf(trace::Index call) {
  const trace::Range& top = range(call);
  // Only the trainer's layer ops have a label that is not one of the trace's strings.
  if (top.text_form != trace::RangeTextForm::kTrainerLayerOp) return opName(trace_, top);
  auto [label, fresh] = composed_labels_.try_emplace(call);
  if (fresh) label->second = operatorLabel(trace_, top);
  return label->second;
}

KernelOrigin LayerAttribution::originOf(trace::Index op_range) {
  KernelOrigin origin;
  const trace::Range& op = range(op_range);
  origin.phase = op.phase;
  origin.eligible_op = eligible_ops_.enclosing(op_range, false);
  origin.shaped_op = eligible_ops_.enclosing(op_range, true);
  if (by_operator_) {
    origin.call = topLevelOperator(trace_, op_range);
    origin.group = labelOf(origin.call);
    // The row already names the top-level call; the op worth showing is the matrix op inside it.
    origin.op = origin.eligible_op != trace::kNone ? opName(trace_, range(origin.eligible_op)) : origin.group;
    return origin;
  }
  if (op.layer == trace::StringTable::kEmpty) return origin;
  origin.group = trace_.str(op.layer);
  // Ranges inherit their layer from their parent (or forward op), so the outermost range that
  // still carries it is one call of the layer, and the outermost operator below it is what the
  // user called (aten::linear rather than the aten::addmm it dispatched to).
  trace::Index outermost_op = op.kind == trace::RangeKind::kOperator ? op_range : trace::kNone;
  origin.call = op_range;
  for (trace::Index parent = op.parent; parent != trace::kNone; parent = range(parent).parent) {
    const trace::Range& candidate = range(parent);
    if (candidate.layer != op.layer) break;
    origin.call = parent;
    if (candidate.kind == trace::RangeKind::kOperator) outermost_op = parent;
  }
  origin.op = opName(trace_, range(outermost_op != trace::kNone ? outermost_op : op_range));
  return origin;
}

}  // namespace ampscope::analyzer
