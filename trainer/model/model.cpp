#include "trainer/model/model.h"

namespace ampscope::trainer {

void Model::initialize(Backend& backend, std::uint64_t seed) {
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i]->initialize(backend, seed * 1000003ULL + i);
}

Tensor Model::forward(LayerContext& ctx, const Tensor& x, LayerObserver* observer) {
  input_shapes_.clear();
  input_dtypes_.clear();
  Tensor current = x;
  for (const auto& layer : layers_) {
    input_shapes_.push_back(current.shape());
    input_dtypes_.push_back(current.dtype());
    if (observer) observer->beginLayer(*layer, Pass::kForward, current.shape(), current.dtype());
    current = layer->forward(ctx, current);
    if (observer) observer->endLayer(*layer, Pass::kForward);
  }
  return current;
}

Tensor Model::backward(LayerContext& ctx, const Tensor& dy, LayerObserver* observer) {
  Tensor current = dy;
  for (std::size_t i = layers_.size(); i-- > 0;) {
    Layer& layer = *layers_[i];
    if (observer) observer->beginLayer(layer, Pass::kBackward, input_shapes_[i], input_dtypes_[i]);
    current = layer.backward(ctx, current);
    if (observer) observer->endLayer(layer, Pass::kBackward);
  }
  return current;
}

std::vector<Parameter*> Model::parameters() {
  std::vector<Parameter*> out;
  for (const auto& layer : layers_) {
    for (Parameter* p : layer->parameters()) out.push_back(p);
  }
  return out;
}

std::int64_t Model::parameterCount() {
  std::int64_t count = 0;
  for (Parameter* p : parameters()) count += p->value.numel();
  return count;
}

}  // namespace ampscope::trainer
