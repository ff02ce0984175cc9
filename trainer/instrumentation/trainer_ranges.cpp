#include "trainer/instrumentation/trainer_ranges.h"

#include <fmt/format.h>

namespace ampscope::trainer {

const char* runPhaseRangeText(RunPhase phase) {
  switch (phase) {
    case RunPhase::kData: return "data";
    case RunPhase::kForward: return "forward";
    case RunPhase::kBackward: return "backward";
    case RunPhase::kLossScale: return "loss_scale";
    case RunPhase::kOptimizer: return "optimizer";
    case RunPhase::kEvaluate: return "evaluate";
  }
  return "";
}

std::string stepRangeText(std::int64_t step) { return fmt::format("step {}", step); }

std::string dataWorkRangeText(std::string_view what, std::int64_t batch) { return fmt::format("{} {}", what, batch); }

std::string layerRangeText(Layer& layer, Pass pass, const Shape& input_shape, DType compute) {
  std::string params;
  for (const Parameter* p : layer.parameters()) {
    params += fmt::format("{}{}", params.empty() ? "" : ",", shapeText(p->value.shape()));
  }
  std::string text = fmt::format("{} {} {} in={} params=[{}] out={} dtype={}", layer.name(), layer.op(),
                                 pass == Pass::kForward ? "forward" : "backward", shapeText(input_shape), params,
                                 shapeText(layer.outputShape(input_shape)), dtypeName(compute));
  const std::string geometry = layer.geometry(input_shape);
  if (!geometry.empty()) text += " " + geometry;
  return text;
}

std::string LayerRanges::text(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) const {
  return layerRangeText(layer, pass, input_shape, policy_.computeType(layer.op(), autocast_, input_dtype));
}

void LayerRanges::beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) {
  Cached& cached = cache_[&layer][pass == Pass::kForward ? 0 : 1];
  if (!cached.built || cached.input_shape != input_shape || cached.input_dtype != input_dtype) {
    cached = {true, input_shape, input_dtype, RangeMarker::registerText(text(layer, pass, input_shape, input_dtype))};
  }
  RangeMarker::push(cached.handle);
}

void LayerRanges::endLayer(Layer& /*layer*/, Pass /*pass*/) { RangeMarker::pop(); }

}  // namespace ampscope::trainer
