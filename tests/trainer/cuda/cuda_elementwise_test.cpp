// Memory, conversions and the element-wise ops of the CUDA backend against the CPU reference.
// Conversions and single roundings must agree bit for bit; transcendental functions (erf, exp)
// may differ by a few FP32 ulps between the CUDA and C math libraries.
#include <array>
#include <cmath>
#include <limits>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

// Ties, overflow, subnormals, signed zero, Inf and NaN: where a wrong rounding mode shows.
std::vector<float> awkwardValues() {
  return {1.0f + std::ldexp(1.0f, -11),          // FP16 tie, rounds down to even
          1.0f + 3.0f * std::ldexp(1.0f, -11),   // FP16 tie, rounds up to even
          1.0f + std::ldexp(1.0f, -8),           // BF16 tie
          1.0f + 3.0f * std::ldexp(1.0f, -8),    // BF16 tie
          70000.0f,                              // FP16 overflow
          65519.0f,                              // FP16 rounds down to the largest finite
          std::ldexp(1.0f, -20),                 // FP16 subnormal
          std::ldexp(1.0f, -25),                 // FP16 tie between zero and the smallest subnormal
          std::ldexp(1.5f, -25),                 // rounds up to the smallest subnormal
          -0.0f,
          -3.14159265f,
          1e30f,
          std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()};
}

TEST_F(CudaBackendTest, UploadRoundsToNearestEvenLikeTheCpu) {
  const std::vector<float> values = awkwardValues();
  for (DType dtype : kDtypes) {
    const TensorPair t = upload({static_cast<std::int64_t>(values.size())}, dtype, values);
    expectBitEqual(gpuValues(t), cpuValues(t), dtypeName(dtype));
  }
}

TEST_F(CudaBackendTest, AllocateZeroesTheTensor) {
  for (DType dtype : kDtypes) {
    const Tensor t = gpu_->allocate({3, 5}, dtype);
    expectBitEqual(gpu_->download(t), std::vector<float>(15, 0.0f), dtypeName(dtype));
  }
}

TEST_F(CudaBackendTest, CopyConvertsBetweenEveryPairOfDtypes) {
  std::vector<float> values = randomValues(1000, -100.0f, 100.0f, 7);
  const std::vector<float> awkward = awkwardValues();
  values.insert(values.end(), awkward.begin(), awkward.end());
  const Shape shape{static_cast<std::int64_t>(values.size())};
  for (DType from : kDtypes) {
    for (DType to : kDtypes) {
      const TensorPair src = upload(shape, from, values);
      TensorPair dst = zeros(shape, to);
      cpu_->copy(src.cpu, dst.cpu);
      gpu_->copy(src.gpu, dst.gpu);
      expectBitEqual(gpuValues(dst), cpuValues(dst), std::string(dtypeName(from)) + " -> " + dtypeName(to));
    }
  }
}

TEST_F(CudaBackendTest, FillAndScaleRoundToTheDtype) {
  for (DType dtype : kDtypes) {
    TensorPair t = zeros({257}, dtype);
    cpu_->fill(t.cpu, 0.1f);
    gpu_->fill(t.gpu, 0.1f);
    expectBitEqual(gpuValues(t), cpuValues(t), std::string("fill ") + dtypeName(dtype));

    TensorPair x = random({1031}, dtype, 11, -4.0f, 4.0f);
    cpu_->scale(x.cpu, 1.0f / 3.0f);
    gpu_->scale(x.gpu, 1.0f / 3.0f);
    expectBitEqual(gpuValues(x), cpuValues(x), std::string("scale ") + dtypeName(dtype));
  }
}

TEST_F(CudaBackendTest, AddBiasBroadcastsOverOuterAndInner) {
  for (DType dtype : kDtypes) {
    TensorPair y = random({4, 6, 35}, dtype, 21);
    const TensorPair bias = random({6}, dtype, 22);
    cpu_->addBias(y.cpu, bias.cpu, 6, 35);
    gpu_->addBias(y.gpu, bias.gpu, 6, 35);
    expectBitEqual(gpuValues(y), cpuValues(y), dtypeName(dtype));
  }
}

TEST_F(CudaBackendTest, BiasGradientSumsEachChannel) {
  const std::array<std::array<std::int64_t, 3>, 3> shapes{{{64, 10, 1}, {8, 16, 196}, {3, 1, 1000}}};
  for (DType dtype : kDtypes) {
    for (const auto& [outer, channels, inner] : shapes) {
      const TensorPair dy = random({outer, channels, inner}, dtype, 31);
      TensorPair dbias = zeros({channels}, dtype);
      cpu_->biasGradient(dy.cpu, dbias.cpu, channels, inner);
      gpu_->biasGradient(dy.gpu, dbias.gpu, channels, inner);
      // The GPU sums in FP32, serially per thread (count / 256 terms) and then in a tree (8 levels):
      // that many roundings of at most 2^-24 of the sum of magnitudes (<= count, as |dy| <= 1).
      const auto count = static_cast<double>(outer * inner);
      const double accumulation = (count / 256.0 + 16.0) * std::ldexp(1.0, -24) * count;
      expectClose(gpuValues(dbias), cpuValues(dbias), unitSpacing(dtype), accumulation,
                  std::string("bias gradient ") + dtypeName(dtype) + " inner " + std::to_string(inner));
    }
  }
}

TEST_F(CudaBackendTest, ActivationsMatchTheCpuForwardAndBackward) {
  for (DType dtype : kDtypes) {
    for (Activation kind : {Activation::kRelu, Activation::kGelu}) {
      const std::string what = std::string(kind == Activation::kRelu ? "relu " : "gelu ") + dtypeName(dtype);
      const TensorPair x = random({5000}, dtype, 41, -6.0f, 6.0f);
      const TensorPair dy = random({5000}, dtype, 42);
      TensorPair y = zeros({5000}, dtype);
      TensorPair dx = zeros({5000}, dtype);
      cpu_->activationForward(kind, x.cpu, y.cpu);
      gpu_->activationForward(kind, x.gpu, y.gpu);
      cpu_->activationBackward(kind, x.cpu, dy.cpu, dx.cpu);
      gpu_->activationBackward(kind, x.gpu, dy.gpu, dx.gpu);
      if (kind == Activation::kRelu) {
        expectBitEqual(gpuValues(y), cpuValues(y), what + " forward");
        expectBitEqual(gpuValues(dx), cpuValues(dx), what + " backward");
        continue;
      }
      // erff/expf of the two math libraries differ by a few FP32 ulps; then one rounding.
      const double relative = unitSpacing(dtype) + 1e-5;
      expectClose(gpuValues(y), cpuValues(y), relative, 1e-6, what + " forward");
      expectClose(gpuValues(dx), cpuValues(dx), relative, 1e-6, what + " backward");
    }
  }
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
