#include "trainer/layers/normalization.h"

namespace ampscope::trainer {

namespace {

// The channel count and the values per channel of x viewed as [n, channels, inner].
std::int64_t innerOf(const Tensor& x) {
  std::int64_t inner = 1;
  for (std::size_t axis = 2; axis < x.rank(); ++axis) inner *= x.dim(axis);
  return inner;
}

void setToOnesAndZeros(Backend& backend, Parameter& gamma, Parameter& beta) {
  backend.fill(gamma.value, 1.0f);
  backend.fill(beta.value, 0.0f);
}

}  // namespace

BatchNorm::BatchNorm(Backend& backend, std::string name, std::int64_t channels)
    : Layer(std::move(name)),
      channels_(channels),
      gamma_(makeParameter(backend, this->name() + ".weight", {channels}, DType::kFp32, true)),
      beta_(makeParameter(backend, this->name() + ".bias", {channels}, DType::kFp32, true)),
      running_mean_(backend.allocate({channels}, DType::kFp32)),
      running_var_(backend.allocate({channels}, DType::kFp32)),
      saved_mean_(backend.allocate({channels}, DType::kFp32)),
      saved_inv_std_(backend.allocate({channels}, DType::kFp32)) {}

void BatchNorm::initialize(Backend& backend, std::uint64_t /*seed*/) {
  setToOnesAndZeros(backend, gamma_, beta_);
  backend.fill(running_mean_, 0.0f);
  backend.fill(running_var_, 1.0f);
}

Tensor BatchNorm::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  saved_x_ = castTo(ctx, x, compute);
  Tensor y = ctx.backend.allocate(x.shape(), compute);
  ctx.backend.batchNormForward(saved_x_, channels_, innerOf(x), gamma_.value, beta_.value, running_mean_, running_var_,
                               kMomentum, kEps, ctx.training, y, saved_mean_, saved_inv_std_);
  return y;
}

Tensor BatchNorm::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.batchNormBackward(saved_x_, dy, channels_, innerOf(saved_x_), gamma_.value, saved_mean_, saved_inv_std_,
                                dx, gamma_.grad, beta_.grad);
  return dx;
}

LayerNorm::LayerNorm(Backend& backend, std::string name, std::int64_t features)
    : Layer(std::move(name)),
      features_(features),
      gamma_(makeParameter(backend, this->name() + ".weight", {features}, DType::kFp32, true)),
      beta_(makeParameter(backend, this->name() + ".bias", {features}, DType::kFp32, true)) {}

void LayerNorm::initialize(Backend& backend, std::uint64_t /*seed*/) { setToOnesAndZeros(backend, gamma_, beta_); }

Tensor LayerNorm::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  saved_x_ = castTo(ctx, x, compute);
  const std::int64_t rows = x.numel() / features_;
  if (!saved_mean_.defined() || saved_mean_.numel() != rows) {
    saved_mean_ = ctx.backend.allocate({rows}, DType::kFp32);
    saved_inv_std_ = ctx.backend.allocate({rows}, DType::kFp32);
  }
  Tensor y = ctx.backend.allocate(x.shape(), compute);
  ctx.backend.layerNormForward(saved_x_, features_, gamma_.value, beta_.value, kEps, y, saved_mean_, saved_inv_std_);
  return y;
}

Tensor LayerNorm::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.layerNormBackward(saved_x_, dy, features_, gamma_.value, saved_mean_, saved_inv_std_, dx, gamma_.grad,
                                beta_.grad);
  return dx;
}

}  // namespace ampscope::trainer
