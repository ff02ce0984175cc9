#include "trainer/layers/layers.h"

#include <cmath>

#include <fmt/format.h>

#include "trainer/numerics/split_mix64.h"

namespace ampscope::trainer {

Tensor* ParameterCasts::find(std::vector<Kept>& kept, const Parameter& p, DType dtype) {
  for (Kept& k : kept) {
    if (k.parameter == &p && k.tensor.dtype() == dtype) return &k.tensor;
  }
  return nullptr;
}

Tensor ParameterCasts::valueIn(Backend& backend, Parameter& p, DType dtype) {
  if (p.value.dtype() == dtype) return p.value;
  if (const Tensor* cast = find(values_, p, dtype)) return *cast;
  Tensor cast = castTensor(backend, p.value, dtype);
  values_.push_back({&p, cast});
  return cast;
}

Tensor ParameterCasts::gradientIn(Backend& backend, Parameter& p, DType dtype) {
  if (p.grad.dtype() == dtype) return p.grad;
  if (const Tensor* buffer = find(gradients_, p, dtype)) return *buffer;
  Tensor buffer = backend.allocate(p.grad.shape(), dtype);
  gradients_.push_back({&p, buffer});
  return buffer;
}

void ParameterCasts::refreshValues(Backend& backend) {
  if (values_.empty()) return;
  std::vector<const Tensor*> sources;
  std::vector<Tensor*> casts;
  for (Kept& k : values_) {
    sources.push_back(&k.parameter->value);
    casts.push_back(&k.tensor);
  }
  backend.copyAll(sources, casts);
}

void ParameterCasts::castGradients(Backend& backend) {
  if (gradients_.empty()) return;
  std::vector<const Tensor*> buffers;
  std::vector<Tensor*> grads;
  for (Kept& k : gradients_) {
    buffers.push_back(&k.tensor);
    grads.push_back(&k.parameter->grad);
  }
  backend.copyAll(buffers, grads);
}

Tensor Layer::castTo(LayerContext& ctx, const Tensor& x, DType dtype) { return castTensor(ctx.backend, x, dtype); }

Tensor Layer::parameterIn(LayerContext& ctx, Parameter& p, DType dtype) {
  return ctx.casts != nullptr ? ctx.casts->valueIn(ctx.backend, p, dtype) : castTo(ctx, p.value, dtype);
}

Tensor Layer::gradientBuffer(LayerContext& ctx, Parameter& p, DType compute) {
  if (ctx.casts != nullptr) return ctx.casts->gradientIn(ctx.backend, p, compute);
  return p.grad.dtype() == compute ? p.grad : ctx.backend.allocate(p.grad.shape(), compute);
}

void Layer::keepGradient(LayerContext& ctx, Parameter& p, const Tensor& computed) {
  // With kept casts, castGradients casts every buffer at once after backward.
  if (ctx.casts == nullptr && computed.raw() != p.grad.raw()) ctx.backend.copy(computed, p.grad);
}

std::vector<float> uniformValues(std::int64_t count, float bound, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> out(static_cast<std::size_t>(count));
  for (float& v : out) v = (2.0f * rng.uniform() - 1.0f) * bound;
  return out;
}

Parameter makeParameter(Backend& backend, std::string name, const Shape& shape, DType dtype, bool always_fp32) {
  Parameter p;
  p.name = std::move(name);
  p.always_fp32 = always_fp32;
  const DType stored = always_fp32 ? DType::kFp32 : dtype;
  p.value = backend.allocate(shape, stored);
  p.grad = backend.allocate(shape, stored);
  return p;
}

MatrixLayer::MatrixLayer(Backend& backend, std::string name, const Shape& weight_shape, DType param_dtype)
    : Layer(std::move(name)),
      weight_(makeParameter(backend, this->name() + ".weight", weight_shape, param_dtype)),
      bias_(makeParameter(backend, this->name() + ".bias", {weight_shape.at(0)}, param_dtype)) {}

std::vector<float> channelsLastOf(const std::vector<float>& first, std::int64_t outer, std::int64_t channels,
                                  std::int64_t inner) {
  std::vector<float> last(first.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t c = 0; c < channels; ++c) {
      for (std::int64_t i = 0; i < inner; ++i) {
        last[static_cast<std::size_t>((o * inner + i) * channels + c)] =
            first[static_cast<std::size_t>((o * channels + c) * inner + i)];
      }
    }
  }
  return last;
}

void MatrixLayer::initializeUniform(Backend& backend, std::uint64_t seed, std::int64_t fan_in, std::int64_t channels) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  const std::vector<float> weight = uniformValues(weight_.value.numel(), bound, seed);
  const std::int64_t rows = weight_.value.dim(0);
  backend.upload(channels > 1 ? channelsLastOf(weight, rows, channels, weight_.value.numel() / (rows * channels))
                              : weight,
                 weight_.value);
  backend.upload(uniformValues(bias_.value.numel(), bound, seed ^ 0x5bd1e995ULL), bias_.value);
}

Tensor MatrixLayer::keepOperands(LayerContext& ctx, const Tensor& x, DType compute) {
  saved_x_ = castTo(ctx, x, compute);
  saved_w_ = parameterIn(ctx, weight_, compute);
  return parameterIn(ctx, bias_, compute);
}

void MatrixLayer::finishBackward(LayerContext& ctx, const Tensor& dy, std::int64_t channels, std::int64_t inner) {
  Tensor db = gradientBuffer(ctx, bias_, dy.dtype());
  ctx.backend.biasGradient(dy, db, channels, inner);
  keepGradient(ctx, bias_, db);
  releaseSaved();
}

Linear::Linear(Backend& backend, std::string name, std::int64_t in_features, std::int64_t out_features,
               DType param_dtype, std::int64_t flattened_channels)
    : MatrixLayer(backend, std::move(name), {out_features, in_features}, param_dtype),
      in_(in_features),
      out_(out_features),
      flattened_channels_(flattened_channels) {}

void Linear::initialize(Backend& backend, std::uint64_t seed) {
  initializeUniform(backend, seed, in_, flattened_channels_);
}

std::string Linear::geometry(const Shape& input) const {
  return fmt::format("gemm={},{},{}", input.at(0), out_, in_);
}

Tensor Linear::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  const Tensor b = keepOperands(ctx, x, compute);
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
  finishBackward(ctx, dy, out_, 1);
  return dx;
}

Conv2d::Conv2d(Backend& backend, std::string name, const Conv2dShape& shape, DType param_dtype)
    : MatrixLayer(backend, std::move(name), {shape.out_channels, shape.in_channels, shape.kernel, shape.kernel},
                  param_dtype),
      shape_(shape) {}

void Conv2d::initialize(Backend& backend, std::uint64_t seed) {
  // Channels last the filter is KRSC: [k, c, r*s] drawn, laid out [k, r*s, c].
  initializeUniform(backend, seed, shape_.in_channels * shape_.kernel * shape_.kernel,
                    shape_.layout == MemoryLayout::kChannelsLast ? shape_.in_channels : 1);
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
  g.layout = shape_.layout;
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
  const Tensor b = keepOperands(ctx, x, compute);
  Tensor y = ctx.backend.allocate(outputShape(x.shape()), compute);
  ctx.backend.convForward(saved_geometry_, saved_x_, saved_w_, y);
  ctx.backend.addBias(y, b, shape_.out_channels,
                      valuesPerChannel(shape_.layout, saved_geometry_.p() * saved_geometry_.q()));
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
  finishBackward(ctx, dy, shape_.out_channels, valuesPerChannel(g.layout, g.p() * g.q()));
  return dx;
}

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

BatchNorm::BatchNorm(Backend& backend, std::string name, std::int64_t channels, MemoryLayout layout)
    : Layer(std::move(name)),
      channels_(channels),
      layout_(layout),
      gamma_(makeParameter(backend, this->name() + ".weight", {channels}, DType::kFp32, true)),
      beta_(makeParameter(backend, this->name() + ".bias", {channels}, DType::kFp32, true)),
      running_mean_(backend.allocate({channels}, DType::kFp32)),
      running_var_(backend.allocate({channels}, DType::kFp32)),
      saved_mean_(backend.allocate({channels}, DType::kFp32)),
      saved_inv_std_(backend.allocate({channels}, DType::kFp32)) {}

std::int64_t BatchNorm::valuesPerChannel(const Tensor& x) const {
  return trainer::valuesPerChannel(layout_, innerOf(x));
}

void BatchNorm::initialize(Backend& backend, std::uint64_t /*seed*/) {
  setToOnesAndZeros(backend, gamma_, beta_);
  backend.fill(running_mean_, 0.0f);
  backend.fill(running_var_, 1.0f);
}

Tensor BatchNorm::forward(LayerContext& ctx, const Tensor& x) {
  const DType compute = ctx.policy.computeType(op(), ctx.autocast, x.dtype());
  saved_x_ = castTo(ctx, x, compute);
  Tensor y = ctx.backend.allocate(x.shape(), compute);
  ctx.backend.batchNormForward(saved_x_, channels_, valuesPerChannel(x), gamma_.value, beta_.value, running_mean_,
                               running_var_, kMomentum, kEps, ctx.training, y, saved_mean_, saved_inv_std_);
  return y;
}

Tensor BatchNorm::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.batchNormBackward(saved_x_, dy, channels_, valuesPerChannel(saved_x_), gamma_.value, saved_mean_,
                                saved_inv_std_, dx, gamma_.grad, beta_.grad);
  releaseSaved();
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
  // The statistics are the step's, as the input is: a step frees them with the rest.
  const std::int64_t rows = x.numel() / features_;
  saved_mean_ = ctx.backend.allocate({rows}, DType::kFp32);
  saved_inv_std_ = ctx.backend.allocate({rows}, DType::kFp32);
  Tensor y = ctx.backend.allocate(x.shape(), compute);
  ctx.backend.layerNormForward(saved_x_, features_, gamma_.value, beta_.value, kEps, y, saved_mean_, saved_inv_std_);
  return y;
}

Tensor LayerNorm::backward(LayerContext& ctx, const Tensor& dy_in) {
  const Tensor dy = castTo(ctx, dy_in, saved_x_.dtype());
  Tensor dx = ctx.backend.allocate(saved_x_.shape(), saved_x_.dtype());
  ctx.backend.layerNormBackward(saved_x_, dy, features_, gamma_.value, saved_mean_, saved_inv_std_, dx, gamma_.grad,
                                beta_.grad);
  releaseSaved();
  return dx;
}

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
  releaseSaved();
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
  g.layout = layout_;
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
  releaseSaved();
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
