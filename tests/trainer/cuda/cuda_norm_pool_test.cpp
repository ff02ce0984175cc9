// Batch norm, layer norm and pooling of the CUDA backend against the CPU reference. The CPU takes
// statistics in FP64 and the GPU in FP32, so means and variances may differ by a few FP32
// roundings of the values' magnitude; everything downstream inherits that, plus one rounding of
// the output dtype. Pooling involves no sums in a different order and must agree to the bit
// (max) or to one rounding (average).
#include <cmath>
#include <utility>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

// FP32 statistics over a few thousand values of magnitude ~4: their error relative to the
// values' scale.
constexpr double kStatistics = 2e-5;

struct BatchNormOutputs {
  TensorPair y, saved_mean, saved_inv_std, running_mean, running_var;
};

class CudaNormTest : public CudaBackendTest {
 protected:
  // x [8, 6, 10, 10] with channel means away from zero, so a one-pass variance would show;
  // `inner` 100 channels first, 1 channels last (each pixel's 6 channels together).
  BatchNormOutputs batchNormForward(DType dtype, bool training, std::int64_t inner = 100) {
    const std::int64_t channels = 6;
    const TensorPair x = random({8, channels, 10, 10}, dtype, 900, 2.0f, 5.0f);
    const TensorPair gamma = random({channels}, DType::kFp32, 901, 0.5f, 1.5f);
    const TensorPair beta = random({channels}, DType::kFp32, 902);
    BatchNormOutputs out{zeros({8, channels, 10, 10}, dtype), zeros({channels}, DType::kFp32),
                         zeros({channels}, DType::kFp32), random({channels}, DType::kFp32, 903, 2.0f, 4.0f),
                         random({channels}, DType::kFp32, 904, 0.5f, 1.5f)};
    cpu_->batchNormForward(x.cpu, channels, inner, gamma.cpu, beta.cpu, out.running_mean.cpu, out.running_var.cpu, 0.1f,
                           1e-5f, training, out.y.cpu, out.saved_mean.cpu, out.saved_inv_std.cpu);
    gpu_->batchNormForward(x.gpu, channels, inner, gamma.gpu, beta.gpu, out.running_mean.gpu, out.running_var.gpu, 0.1f,
                           1e-5f, training, out.y.gpu, out.saved_mean.gpu, out.saved_inv_std.gpu);
    return out;
  }
};

TEST_F(CudaNormTest, BatchNormTrainingMatchesTheCpu) {
  for (const auto& [dtype, inner] : {std::pair{DType::kFp32, 100}, std::pair{DType::kFp16, 100},
                                     std::pair{DType::kBf16, 100}, std::pair{DType::kFp32, 1},
                                     std::pair{DType::kFp16, 1}}) {
    const std::string what = std::string("batch norm training ") + dtypeName(dtype) + (inner == 1 ? " NHWC" : " NCHW");
    const BatchNormOutputs out = batchNormForward(dtype, true, inner);
    expectClose(gpuValues(out.saved_mean), cpuValues(out.saved_mean), 0.0, kStatistics * 5.0, what + " mean");
    expectClose(gpuValues(out.saved_inv_std), cpuValues(out.saved_inv_std), 1e-4, 0.0, what + " inv std");
    expectClose(gpuValues(out.running_mean), cpuValues(out.running_mean), 1e-5, kStatistics, what + " running mean");
    expectClose(gpuValues(out.running_var), cpuValues(out.running_var), 1e-4, 0.0, what + " running var");
    // y is O(1): the statistics' error times inv_std (~1) times gamma (< 1.5).
    expectClose(gpuValues(out.y), cpuValues(out.y), unitSpacing(dtype), 5e-4, what + " y");
  }
}

TEST_F(CudaNormTest, BatchNormEvaluationUsesTheRunningStatistics) {
  for (DType dtype : kDtypes) {
    const std::string what = std::string("batch norm eval ") + dtypeName(dtype);
    const BatchNormOutputs out = batchNormForward(dtype, false);
    expectBitEqual(gpuValues(out.running_mean), cpuValues(out.running_mean), what + " running mean untouched");
    expectBitEqual(gpuValues(out.running_var), cpuValues(out.running_var), what + " running var untouched");
    expectClose(gpuValues(out.saved_inv_std), cpuValues(out.saved_inv_std), 1e-6, 0.0, what + " inv std");
    expectClose(gpuValues(out.y), cpuValues(out.y), unitSpacing(dtype) + 1e-5, 1e-5, what + " y");
  }
}

TEST_F(CudaNormTest, BatchNormBackwardMatchesTheCpu) {
  for (const auto& [dtype, inner] : {std::pair{DType::kFp32, std::int64_t{49}}, std::pair{DType::kFp16, std::int64_t{49}},
                                     std::pair{DType::kBf16, std::int64_t{49}}, std::pair{DType::kFp32, std::int64_t{1}},
                                     std::pair{DType::kFp16, std::int64_t{1}}}) {
    const std::string what = std::string("batch norm backward ") + dtypeName(dtype) + (inner == 1 ? " NHWC" : " NCHW");
    const std::int64_t channels = 6;
    const Shape shape{16, channels, 7, 7};
    const TensorPair x = random(shape, dtype, 910, -2.0f, 3.0f);
    const TensorPair dy = random(shape, dtype, 911);
    const TensorPair gamma = random({channels}, DType::kFp32, 912, 0.5f, 1.5f);
    // Statistics from the CPU, given to both: the backward pass is checked on its own.
    const TensorPair mean = random({channels}, DType::kFp32, 913, 0.4f, 0.6f);
    const TensorPair inv_std = random({channels}, DType::kFp32, 914, 0.6f, 0.8f);
    TensorPair dx = zeros(shape, dtype);
    TensorPair dgamma = zeros({channels}, DType::kFp32);
    TensorPair dbeta = zeros({channels}, DType::kFp32);
    cpu_->batchNormBackward(x.cpu, dy.cpu, channels, inner, gamma.cpu, mean.cpu, inv_std.cpu, dx.cpu, dgamma.cpu,
                            dbeta.cpu);
    gpu_->batchNormBackward(x.gpu, dy.gpu, channels, inner, gamma.gpu, mean.gpu, inv_std.gpu, dx.gpu, dgamma.gpu,
                            dbeta.gpu);
    // Sums over 784 values of magnitude <= ~2: FP32 error ~ a few 1e-4 absolute in the worst case.
    expectClose(gpuValues(dbeta), cpuValues(dbeta), 0.0, 1e-3, what + " dbeta");
    expectClose(gpuValues(dgamma), cpuValues(dgamma), 0.0, 2e-3, what + " dgamma");
    // dx = inv_std / count * (...): the sums' error divided by the count, plus the element term.
    expectClose(gpuValues(dx), cpuValues(dx), unitSpacing(dtype) + 1e-5, 1e-5, what + " dx");
  }
}

TEST_F(CudaNormTest, LayerNormForwardAndBackwardMatchTheCpu) {
  for (DType dtype : kDtypes) {
    const std::string what = std::string("layer norm ") + dtypeName(dtype);
    const std::int64_t rows = 12;
    const std::int64_t features = 300;
    const TensorPair x = random({rows, features}, dtype, 920, 1.0f, 4.0f);
    const TensorPair gamma = random({features}, DType::kFp32, 921, 0.5f, 1.5f);
    const TensorPair beta = random({features}, DType::kFp32, 922);
    TensorPair y = zeros({rows, features}, dtype);
    TensorPair mean = zeros({rows}, DType::kFp32);
    TensorPair inv_std = zeros({rows}, DType::kFp32);
    cpu_->layerNormForward(x.cpu, features, gamma.cpu, beta.cpu, 1e-5f, y.cpu, mean.cpu, inv_std.cpu);
    gpu_->layerNormForward(x.gpu, features, gamma.gpu, beta.gpu, 1e-5f, y.gpu, mean.gpu, inv_std.gpu);
    expectClose(gpuValues(mean), cpuValues(mean), 0.0, kStatistics, what + " mean");
    expectClose(gpuValues(inv_std), cpuValues(inv_std), 1e-4, 0.0, what + " inv std");
    expectClose(gpuValues(y), cpuValues(y), unitSpacing(dtype), 5e-4, what + " y");

    // Backward from the CPU's statistics on both sides.
    const TensorPair saved_mean = upload({rows}, DType::kFp32, cpuValues(mean));
    const TensorPair saved_inv_std = upload({rows}, DType::kFp32, cpuValues(inv_std));
    const TensorPair dy = random({rows, features}, dtype, 923);
    TensorPair dx = zeros({rows, features}, dtype);
    TensorPair dgamma = zeros({features}, DType::kFp32);
    TensorPair dbeta = zeros({features}, DType::kFp32);
    cpu_->layerNormBackward(x.cpu, dy.cpu, features, gamma.cpu, saved_mean.cpu, saved_inv_std.cpu, dx.cpu, dgamma.cpu,
                            dbeta.cpu);
    gpu_->layerNormBackward(x.gpu, dy.gpu, features, gamma.gpu, saved_mean.gpu, saved_inv_std.gpu, dx.gpu, dgamma.gpu,
                            dbeta.gpu);
    expectClose(gpuValues(dbeta), cpuValues(dbeta), 1e-5, 1e-5, what + " dbeta");
    expectClose(gpuValues(dgamma), cpuValues(dgamma), 1e-5, 1e-5, what + " dgamma");
    expectClose(gpuValues(dx), cpuValues(dx), unitSpacing(dtype) + 1e-4, 1e-4, what + " dx");
  }
}

class CudaPoolTest : public CudaBackendTest {};

TEST_F(CudaPoolTest, MaxAndAveragePoolingMatchTheCpu) {
  PoolGeometry square;  // 2x2, stride 2, dividing the plane
  square.n = 3;
  square.c = 4;
  square.h = 12;
  square.w = 12;
  PoolGeometry overlapping = square;  // 3x3 windows overlap at stride 2, and the edge is left over
  overlapping.h = 13;
  overlapping.w = 11;
  overlapping.window = 3;
  PoolGeometry square_nhwc = square;
  square_nhwc.layout = MemoryLayout::kChannelsLast;
  PoolGeometry overlapping_nhwc = overlapping;
  overlapping_nhwc.layout = MemoryLayout::kChannelsLast;
  for (DType dtype : kDtypes) {
    for (const PoolGeometry& g : {square, overlapping, square_nhwc, overlapping_nhwc}) {
      for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
        const std::string what = std::string(kind == PoolKind::kMax ? "max " : "average ") + dtypeName(dtype) +
                                 " window " + std::to_string(g.window) +
                                 (g.layout == MemoryLayout::kChannelsLast ? " NHWC" : " NCHW");
        const Shape x_shape{g.n, g.c, g.h, g.w};
        const Shape y_shape{g.n, g.c, g.p(), g.q()};
        // Few distinct values, so windows hold ties and the first-maximum rule matters.
        std::vector<float> values = randomValues(elementCount(x_shape), -4.0f, 4.0f, 930);
        for (float& v : values) v = std::round(v);
        const TensorPair x = upload(x_shape, dtype, values);
        const TensorPair dy = random(y_shape, dtype, 931);
        TensorPair y = zeros(y_shape, dtype);
        TensorPair dx = zeros(x_shape, dtype);
        cpu_->poolForward(kind, g, x.cpu, y.cpu);
        gpu_->poolForward(kind, g, x.gpu, y.gpu);
        cpu_->poolBackward(kind, g, x.cpu, dy.cpu, dx.cpu);
        gpu_->poolBackward(kind, g, x.gpu, dy.gpu, dx.gpu);
        if (kind == PoolKind::kMax) {
          expectBitEqual(gpuValues(y), cpuValues(y), what + " forward");
          expectBitEqual(gpuValues(dx), cpuValues(dx), what + " backward");
        } else {
          expectClose(gpuValues(y), cpuValues(y), unitSpacing(dtype), 0.0, what + " forward");
          expectClose(gpuValues(dx), cpuValues(dx), unitSpacing(dtype), smallestValue(dtype), what + " backward");
        }
      }
    }
  }
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
