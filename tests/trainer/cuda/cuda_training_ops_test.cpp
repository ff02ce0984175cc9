// The loss, the gradient checks the loss scaler relies on, and the optimizer steps of the CUDA
// backend against the CPU reference. Overflow detection and the histogram count and compare
// without arithmetic of their own, so they must agree exactly.
#include <cmath>
#include <limits>
#include <vector>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

std::vector<float> labelValues(std::int64_t batch, std::int64_t classes, std::uint32_t seed) {
  std::vector<float> labels = randomValues(batch, 0.0f, static_cast<float>(classes), seed);
  for (float& label : labels) label = std::floor(label);
  return labels;
}

TEST_F(CudaBackendTest, SoftmaxCrossEntropyMatchesTheCpu) {
  const std::int64_t batch = 67;
  const std::int64_t classes = 10;
  const float loss_scale = 1024.0f;
  for (DType logits_dtype : kDtypes) {
    for (DType grad_dtype : {DType::kFp32, logits_dtype}) {
      const std::string what = std::string("logits ") + dtypeName(logits_dtype) + " dlogits " + dtypeName(grad_dtype);
      const TensorPair logits = random({batch, classes}, logits_dtype, 1000, -5.0f, 5.0f);
      const TensorPair labels = upload({batch}, DType::kFp32, labelValues(batch, classes, 1001));
      TensorPair dlogits = zeros({batch, classes}, grad_dtype);
      const Backend::LossResult expected = cpu_->softmaxCrossEntropy(logits.cpu, labels.cpu, loss_scale, dlogits.cpu);
      const Backend::LossResult actual = gpu_->softmaxCrossEntropy(logits.gpu, labels.gpu, loss_scale, dlogits.gpu);
      // expf/logf of the two math libraries differ by an ulp or two.
      EXPECT_NEAR(actual.loss, expected.loss, 1e-5 * expected.loss) << what;
      EXPECT_EQ(actual.correct, expected.correct) << what;
      const double grad_factor = loss_scale / static_cast<double>(batch);
      expectClose(gpuValues(dlogits), cpuValues(dlogits), unitSpacing(grad_dtype) + 1e-5, 1e-6 * grad_factor,
                  what + " dlogits");
    }
  }
}

TEST_F(CudaBackendTest, CountCorrectMatchesTheCpu) {
  for (DType dtype : kDtypes) {
    const TensorPair logits = random({300, 7}, dtype, 1010);
    const TensorPair labels = upload({300}, DType::kFp32, labelValues(300, 7, 1011));
    const std::int64_t expected = cpu_->countCorrect(logits.cpu, labels.cpu);
    EXPECT_GT(expected, 0);
    EXPECT_EQ(gpu_->countCorrect(logits.gpu, labels.gpu), expected) << dtypeName(dtype);
  }
}

TEST_F(CudaBackendTest, UnscaleAndCheckFindsAPlantedInfinity) {
  for (DType dtype : kDtypes) {
    for (float planted : {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      const std::string what = std::string(dtypeName(dtype)) + " planted " + std::to_string(planted);
      std::vector<TensorPair> grads;
      grads.push_back(random({100}, dtype, 1020, -1000.0f, 1000.0f));
      std::vector<float> middle = randomValues(5000, -1000.0f, 1000.0f, 1021);
      middle[4321] = planted;
      grads.push_back(upload({5000}, dtype, middle));
      grads.push_back(random({7}, dtype, 1022, -1000.0f, 1000.0f));
      std::vector<Tensor*> cpu_grads;
      std::vector<Tensor*> gpu_grads;
      for (TensorPair& g : grads) {
        cpu_grads.push_back(&g.cpu);
        gpu_grads.push_back(&g.gpu);
      }
      const bool expected = cpu_->unscaleAndCheck(cpu_grads, 1.0f / 512.0f);
      EXPECT_EQ(expected, planted != 0.0f) << what;
      EXPECT_EQ(gpu_->unscaleAndCheck(gpu_grads, 1.0f / 512.0f), expected) << what;
      for (const TensorPair& g : grads) expectBitEqual(gpuValues(g), cpuValues(g), what + " unscaled values");
    }
  }
}

TEST_F(CudaBackendTest, SquaredNormMatchesTheCpu) {
  for (DType dtype : kDtypes) {
    for (std::int64_t count : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{3'000'001}}) {
      const TensorPair x = random({count}, dtype, 1030, -2.0f, 2.0f);
      const double expected = cpu_->squaredNorm(x.cpu);
      // FP32 partial sums of positive terms: a relative error of a few hundred roundings at most.
      EXPECT_NEAR(gpu_->squaredNorm(x.gpu), expected, 1e-4 * expected) << dtypeName(dtype) << " count " << count;
    }
  }
}

TEST_F(CudaBackendTest, GradientHistogramCountsExactlyLikeTheCpu) {
  // Magnitudes from 2^-50 to 2^20, so both clamped end bins fill; zeros, Inf and NaN among them.
  std::vector<float> values = randomValues(20000, -50.0f, 20.0f, 1040);
  const std::vector<float> signs = randomValues(20000, -1.0f, 1.0f, 1041);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::copysign(std::exp2(values[i]), signs[i]);
  values[10] = 0.0f;
  values[11] = -0.0f;
  values[12] = std::numeric_limits<float>::infinity();
  values[13] = std::numeric_limits<float>::quiet_NaN();
  for (DType dtype : kDtypes) {
    const TensorPair g = upload({static_cast<std::int64_t>(values.size())}, dtype, values);
    for (float scale : {1.0f, 65536.0f}) {
      const GradientHistogram expected = cpu_->gradientHistogram(g.cpu, scale);
      const GradientHistogram actual = gpu_->gradientHistogram(g.gpu, scale);
      const std::string what = std::string(dtypeName(dtype)) + " scale " + std::to_string(scale);
      // FP16 storage has already flushed everything below 2^-24; the wider types keep values that
      // would underflow at these scales.
      if (dtype != DType::kFp16) {
        EXPECT_GT(expected.underflow_at_scale, 0u) << what;
      }
      EXPECT_EQ(actual.bins, expected.bins) << what;
      EXPECT_EQ(actual.zeros, expected.zeros) << what;
      EXPECT_EQ(actual.non_finite, expected.non_finite) << what;
      EXPECT_EQ(actual.underflow_at_scale, expected.underflow_at_scale) << what;
      EXPECT_EQ(actual.count, expected.count) << what;
    }
  }
}

// Several steps, so the optimizer state carries over; parameters in each dtype with FP32 state
// (master-weight style) and all-low-precision state.
TEST_F(CudaBackendTest, SgdStepsMatchTheCpu) {
  SgdSettings settings;
  settings.lr = 0.05f;
  settings.momentum = 0.9f;
  settings.weight_decay = 1e-3f;
  for (DType dtype : kDtypes) {
    TensorPair param = random({4099}, dtype, 1050);
    TensorPair momentum = zeros({4099}, dtype);
    for (int step = 0; step < 4; ++step) {
      const TensorPair grad = random({4099}, dtype, 1051 + static_cast<std::uint32_t>(step));
      cpu_->sgdStep(settings, param.cpu, grad.cpu, momentum.cpu);
      gpu_->sgdStep(settings, param.gpu, grad.gpu, momentum.gpu);
    }
    // The GPU may fuse a multiply and an add (one rounding instead of two), so a stored value may
    // round the other way now and then; such a one-step difference stays as the values move, so it
    // is bounded by the values' scale (parameters ~1, momentum ~4), not by their final size.
    const double steps = 4.0 * unitSpacing(dtype);
    expectClose(gpuValues(param), cpuValues(param), steps + 1e-6, steps + 1e-6,
                std::string("sgd param ") + dtypeName(dtype));
    expectClose(gpuValues(momentum), cpuValues(momentum), steps + 1e-6, 4.0 * steps + 1e-6,
                std::string("sgd momentum ") + dtypeName(dtype));
  }
}

TEST_F(CudaBackendTest, AdamWStepsMatchTheCpu) {
  AdamWSettings settings;
  settings.lr = 1e-2f;
  settings.weight_decay = 0.05f;
  for (DType param_dtype : kDtypes) {
    TensorPair param = random({4099}, param_dtype, 1060);
    TensorPair m = zeros({4099}, DType::kFp32);
    TensorPair v = zeros({4099}, DType::kFp32);
    for (std::int64_t step = 1; step <= 4; ++step) {
      const TensorPair grad = random({4099}, param_dtype, 1061 + static_cast<std::uint32_t>(step));
      cpu_->adamWStep(settings, step, param.cpu, grad.cpu, m.cpu, v.cpu);
      gpu_->adamWStep(settings, step, param.gpu, grad.gpu, m.gpu, v.gpu);
    }
    const std::string what = std::string("adamw ") + dtypeName(param_dtype);
    // As for SGD: occasional opposite roundings, bounded by the parameters' scale (~1).
    const double steps = 4.0 * unitSpacing(param_dtype);
    expectClose(gpuValues(param), cpuValues(param), steps + 1e-6, steps + 1e-6, what + " param");
    expectClose(gpuValues(m), cpuValues(m), 1e-5, 1e-7, what + " first moment");
    expectClose(gpuValues(v), cpuValues(v), 1e-5, 1e-9, what + " second moment");
  }
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
