#include "trainer/layers/shape_layers.h"

namespace ampscope::trainer {

Tensor ActivationLayer::forward(LayerContext& ctx, const Tensor& x) {
  saved_x_ = x;
  Tensor y = ctx.backend.allocate(x.shape(), x.dtype());
  ctx.backend.activationForward(kind_, x, y);
  return y;
}

Tensor ActivationLayer::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.activationBackward(kind_, saved_x_, dy, dx);
  return dx;
}

PoolGeometry Pool2d::geometryFor(const Shape& input) const {
  PoolGeometry g;
  g.n = input.at(0);
  g.c = input.at(1);
  g.h = input.at(2);
  g.w = input.at(3);
  g.window = window_;
  g.stride = window_;
  return g;
}

Shape Pool2d::outputShape(const Shape& input) const {
  const PoolGeometry g = geometryFor(input);
  return {g.n, g.c, g.p(), g.q()};
}

Tensor Pool2d::forward(LayerContext& ctx, const Tensor& x) {
  saved_x_ = x;
  Tensor y = ctx.backend.allocate(outputShape(x.shape()), x.dtype());
  ctx.backend.poolForward(kind_, geometryFor(x.shape()), x, y);
  return y;
}

Tensor Pool2d::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.poolBackward(kind_, geometryFor(saved_x_.shape()), saved_x_, dy, dx);
  return dx;
}

Shape Flatten::outputShape(const Shape& input) const {
  std::int64_t features = 1;
  for (std::size_t axis = 1; axis < input.size(); ++axis) features *= input[axis];
  return {input.at(0), features};
}

Tensor Flatten::forward(LayerContext& /*ctx*/, const Tensor& x) {
  input_shape_ = x.shape();
  return x.reshaped(outputShape(x.shape()));
}

Tensor Flatten::backward(LayerContext& /*ctx*/, const Tensor& dy) { return dy.reshaped(input_shape_); }

}  // namespace ampscope::trainer
