#include "trainer/layers/layer.h"

namespace ampscope::trainer {

Tensor Layer::castTo(LayerContext& ctx, const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = ctx.backend.allocate(x.shape(), dtype);
  ctx.backend.copy(x, out);
  return out;
}

Tensor Layer::gradientBuffer(LayerContext& ctx, Parameter& p, DType compute) {
  return p.grad.dtype() == compute ? p.grad : ctx.backend.allocate(p.grad.shape(), compute);
}

void Layer::keepGradient(LayerContext& ctx, Parameter& p, const Tensor& computed) {
  if (computed.raw() != p.grad.raw()) ctx.backend.copy(computed, p.grad);
}

std::vector<float> uniformValues(std::int64_t count, float bound, std::uint64_t seed) {
  // SplitMix64: a fixed, documented generator, so a seed means the same weights everywhere.
  std::uint64_t state = seed;
  std::vector<float> out(static_cast<std::size_t>(count));
  for (float& v : out) {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const float unit = static_cast<float>(z >> 40) * 0x1.0p-24f;  // [0, 1)
    v = (2.0f * unit - 1.0f) * bound;
  }
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
