#include "analyzer/correlate/layer_attribution.h"

#include <utility>

#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/correlator.h"

namespace ampscope::analyzer {

LayerAttribution::LayerAttribution(const trace::Trace& trace)
    : trace_(trace), eligible_ops_(trace), origin_of_range_(trace.ranges.size(), -1) {
  for (const trace::Kernel& kernel : trace.kernels) {
    if (kernel.op_range != trace::kNone && range(kernel.op_range).layer != trace::StringTable::kEmpty) {
      origins_.groups_operators = false;
      break;
    }
  }
}

std::int32_t LayerAttribution::originOf(trace::Index op_range) {
  if (op_range == trace::kNone) return -1;
  std::int32_t& index = origin_of_range_[static_cast<std::size_t>(op_range)];
  if (index < 0) {
    KernelOrigin origin = build(op_range);
    index = static_cast<std::int32_t>(origins_.origins.size());
    origins_.origins.push_back(origin);
  }
  return index;
}

std::int32_t LayerAttribution::labelOfText(std::string text) {
  if (text.empty()) return -1;  // a group or op without a name is none
  const auto [found, fresh] = label_of_text_.try_emplace(text, static_cast<std::int32_t>(origins_.labels.size()));
  if (fresh) origins_.labels.push_back(std::move(text));
  return found->second;
}

std::int32_t LayerAttribution::labelOfName(trace::StringId name) {
  return label_of_name_.get(name, [&] { return labelOfText(std::string(trace_.str(name))); });
}

std::int32_t LayerAttribution::labelOfCall(trace::Index call) {
  const trace::Range& top = range(call);
  // Only the trainer's layer ops have a label that is not one of the trace's strings.
  if (top.text_form != trace::RangeTextForm::kTrainerLayerOp) return labelOfName(opNameId(top));
  const auto [label, fresh] = label_of_call_.try_emplace(call, -1);
  if (fresh) label->second = labelOfText(operatorLabel(trace_, top));
  return label->second;
}

KernelOrigin LayerAttribution::build(trace::Index op_range) {
  KernelOrigin origin;
  const trace::Range& op = range(op_range);
  origin.op_range = op_range;
  origin.top_level_op = topLevelOperator(trace_, op_range);
  origin.layer = op.layer;
  origin.phase = op.phase;
  origin.eligible_op = eligible_ops_.enclosing(op_range, false);
  origin.shaped_op = eligible_ops_.enclosing(op_range, true);
  if (origins_.groups_operators) {
    origin.call = origin.top_level_op;
    origin.group = labelOfCall(origin.call);
    // The row already names the top-level call; the op worth showing is the matrix op inside it.
    origin.op = origin.eligible_op != trace::kNone ? labelOfName(opNameId(range(origin.eligible_op))) : origin.group;
    return origin;
  }
  if (op.layer == trace::StringTable::kEmpty) return origin;
  origin.group = labelOfName(op.layer);
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
  origin.op = labelOfName(opNameId(range(outermost_op != trace::kNone ? outermost_op : op_range)));
  return origin;
}

}  // namespace ampscope::analyzer
