#include "trainer/layers/layer.h"

#include "trainer/numerics/split_mix64.h"

namespace ampscope::trainer {

Tensor Layer::castTo(LayerContext& ctx, const Tensor& x, DType dtype) { return castTensor(ctx.backend, x, dtype); }

Tensor Layer::gradientBuffer(LayerContext& ctx, Parameter& p, DType compute) {
  return p.grad.dtype() == compute ? p.grad : ctx.backend.allocate(p.grad.shape(), compute);
}

void Layer::keepGradient(LayerContext& ctx, Parameter& p, const Tensor& computed) {
  if (computed.raw() != p.grad.raw()) ctx.backend.copy(computed, p.grad);
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

}  // namespace ampscope::trainer
