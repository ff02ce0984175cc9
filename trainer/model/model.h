#pragma once
// A model is a sequence of layers. Forward and backward walk it, telling an observer (the
// instrumentation) where each layer's work begins and ends.

#include <memory>
#include <vector>

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

enum class Pass { kForward, kBackward };

class LayerObserver {
 public:
  virtual ~LayerObserver() = default;
  // input: what the layer reads in this pass (x forward, dy backward); input_shape: x's shape.
  virtual void beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) = 0;
  virtual void endLayer(Layer& layer, Pass pass) = 0;
};

class Model {
 public:
  void add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }

  void initialize(Backend& backend, std::uint64_t seed);
  Tensor forward(LayerContext& ctx, const Tensor& x, LayerObserver* observer = nullptr);
  Tensor backward(LayerContext& ctx, const Tensor& dy, LayerObserver* observer = nullptr);
  std::vector<Parameter*> parameters();
  std::int64_t parameterCount();

 private:
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Shape> input_shapes_;  // per layer, from the last forward
  std::vector<DType> input_dtypes_;
};

}  // namespace ampscope::trainer
