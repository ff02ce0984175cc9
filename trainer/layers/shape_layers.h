#pragma once
// Layers without parameters: activations (ReLU, GELU), pooling (max, average) and flatten. They
// compute in their input's dtype (autocast's "follow the inputs" list).

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

class ActivationLayer final : public Layer {
 public:
  ActivationLayer(std::string name, Activation kind) : Layer(std::move(name)), kind_(kind) {}
  std::string_view op() const override { return kind_ == Activation::kRelu ? "relu" : "gelu"; }
  Shape outputShape(const Shape& input) const override { return input; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;

 private:
  Activation kind_;
  Tensor saved_x_;
};

class Pool2d final : public Layer {
 public:
  Pool2d(std::string name, PoolKind kind, std::int64_t window) : Layer(std::move(name)), kind_(kind), window_(window) {}
  std::string_view op() const override { return kind_ == PoolKind::kMax ? "max_pool2d" : "avg_pool2d"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;

 private:
  PoolGeometry geometryFor(const Shape& input) const;
  PoolKind kind_;
  std::int64_t window_;
  Tensor saved_x_;
};

// [n, ...] -> [n, product of the rest]; shares memory.
class Flatten final : public Layer {
 public:
  explicit Flatten(std::string name) : Layer(std::move(name)) {}
  std::string_view op() const override { return "flatten"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;

 private:
  Shape input_shape_;
};

}  // namespace ampscope::trainer
