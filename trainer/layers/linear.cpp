#include "trainer/layers/linear.h"

#include <cmath>

#include <fmt/format.h>

namespace ampscope::trainer {

Linear::Linear(Backend& backend, std::string name, std::int64_t in_features, std::int64_t out_features,
               DType param_dtype)
    : Layer(std::move(name)),
      in_(in_features),
      out_(out_features),
      weight_(makeParameter(backend, this->name() + ".weight", {out_features, in_features}, param_dtype)),
      bias_(makeParameter(backend, this->name() + ".bias", {out_features}, param_dtype)) {}

void Linear::initialize(Backend& backend, std::uint64_t seed) {
  // PyTorch's default: kaiming_uniform(a = sqrt(5)) gives bound 1/sqrt(fan_in), for the bias too.
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
  backend.upload(uniformValues(weight_.value.numel(), bound, seed), weight_.value);
  backend.upload(uniformValues(bias_.value.numel(), bound, seed ^ 0x5bd1e995ULL), bias_.value);
}

std::string Linear::geometry(const Shape& input) const {
  return fmt::format("gemm={},{},{}", input.at(0), out_, in_);
}

Tensor Linear::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  saved_x_ = castTo(ctx, x, compute);
  saved_w_ = castTo(ctx, weight_.value, compute);
  const Tensor b = castTo(ctx, bias_.value, compute);
  Tensor y = ctx.backend.allocate({x.dim(0), out_}, compute);
  GemmCall call;
  call.m = x.dim(0);
  call.n = out_;
  call.k = in_;
  call.transpose_b = true;
  ctx.backend.gemm(call, saved_x_, saved_w_, y);
  ctx.backend.addBias(y, b, out_, 1);
  return y;
}

Tensor Linear::backward(LayerContext& ctx, const Tensor& dy_in) {
  const DType compute = saved_x_.dtype();
  const Tensor dy = castTo(ctx, dy_in, compute);
  const std::int64_t batch = dy.dim(0);
  Tensor dx = ctx.backend.allocate({batch, in_}, compute);
  GemmCall data;
  data.m = batch;
  data.n = in_;
  data.k = out_;
  ctx.backend.gemm(data, dy, saved_w_, dx);

  // The weight gradient comes out in the compute dtype and is cast to the parameter's, as
  // autocast's cast does in its backward.
  Tensor dw = gradientBuffer(ctx, weight_, compute);
  GemmCall filter;
  filter.m = out_;
  filter.n = in_;
  filter.k = batch;
  filter.transpose_a = true;
  ctx.backend.gemm(filter, dy, saved_x_, dw);
  keepGradient(ctx, weight_, dw);
  Tensor db = gradientBuffer(ctx, bias_, compute);
  ctx.backend.biasGradient(dy, db, out_, 1);
  keepGradient(ctx, bias_, db);
  return dx;
}

}  // namespace ampscope::trainer
