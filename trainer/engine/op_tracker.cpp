#include "trainer/engine/op_tracker.h"

#include <fmt/format.h>

namespace ampscope::trainer {

void OpTracker::beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) {
  layer_ = &layer;
  pass_ = pass;
  if (next_ != nullptr) next_->beginLayer(layer, pass, input_shape, input_dtype);
}

void OpTracker::endLayer(Layer& layer, Pass pass) {
  if (next_ != nullptr) next_->endLayer(layer, pass);
  layer_ = nullptr;
}

std::string OpTracker::describe() const {
  if (layer_ == nullptr) return phase_;
  return fmt::format("{} {} {}", layer_->name(), layer_->op(), pass_ == Pass::kForward ? "forward" : "backward");
}

}  // namespace ampscope::trainer
