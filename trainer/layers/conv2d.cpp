#include "trainer/layers/conv2d.h"

#include <cmath>

#include <fmt/format.h>

namespace ampscope::trainer {

Conv2d::Conv2d(Backend& backend, std::string name, const Conv2dShape& shape, DType param_dtype)
    : Layer(std::move(name)),
      shape_(shape),
      weight_(makeParameter(backend, this->name() + ".weight",
                            {shape.out_channels, shape.in_channels, shape.kernel, shape.kernel}, param_dtype)),
      bias_(makeParameter(backend, this->name() + ".bias", {shape.out_channels}, param_dtype)) {}

void Conv2d::initialize(Backend& backend, std::uint64_t seed) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(shape_.in_channels * shape_.kernel * shape_.kernel));
  backend.upload(uniformValues(weight_.value.numel(), bound, seed), weight_.value);
  backend.upload(uniformValues(bias_.value.numel(), bound, seed ^ 0x5bd1e995ULL), bias_.value);
}

ConvGeometry Conv2d::geometryFor(const Shape& input) const {
  ConvGeometry g;
  g.n = input.at(0);
  g.c = input.at(1);
  g.h = input.at(2);
  g.w = input.at(3);
  g.k = shape_.out_channels;
  g.r = shape_.kernel;
  g.s = shape_.kernel;
  g.stride = shape_.stride;
  g.pad = shape_.pad;
  return g;
}

Shape Conv2d::outputShape(const Shape& input) const {
  const ConvGeometry g = geometryFor(input);
  return {g.n, g.k, g.p(), g.q()};
}

std::string Conv2d::geometry(const Shape& input) const {
  const ConvGeometry g = geometryFor(input);
  return fmt::format("conv={},{},{},{},{},{},{},{},{} gemm={},{},{}", g.n, g.c, g.h, g.w, g.k, g.r, g.s, g.stride,
                     g.pad, g.n * g.p() * g.q(), g.k, g.c * g.r * g.s);
}

Tensor Conv2d::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  saved_geometry_ = geometryFor(x.shape());
  saved_x_ = castTo(ctx, x, compute);
  saved_w_ = castTo(ctx, weight_.value, compute);
  const Tensor b = castTo(ctx, bias_.value, compute);
  Tensor y = ctx.backend.allocate(outputShape(x.shape()), compute);
  ctx.backend.convForward(saved_geometry_, saved_x_, saved_w_, y);
  ctx.backend.addBias(y, b, shape_.out_channels, saved_geometry_.p() * saved_geometry_.q());
  return y;
}

Tensor Conv2d::backward(LayerContext& ctx, const Tensor& dy_in) {
  const DType compute = saved_x_.dtype();
  const Tensor dy = castTo(ctx, dy_in, compute);
  const ConvGeometry& g = saved_geometry_;
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), compute);
  ctx.backend.convBackwardData(g, dy, saved_w_, dx);
  Tensor dw = gradientBuffer(ctx, weight_, compute);
  ctx.backend.convBackwardFilter(g, saved_x_, dy, dw);
  keepGradient(ctx, weight_, dw);
  Tensor db = gradientBuffer(ctx, bias_, compute);
  ctx.backend.biasGradient(dy, db, shape_.out_channels, g.p() * g.q());
  keepGradient(ctx, bias_, db);
  return dx;
}

}  // namespace ampscope::trainer
