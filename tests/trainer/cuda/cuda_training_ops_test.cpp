// The loss, the gradient checks the loss scaler relies on, the clipping and the histograms of the
// CUDA backend against the CPU reference, each reading the scale from, and writing its figures
// into, the step state in the backend's memory. Overflow detection and the histogram count and
// compare without arithmetic of their own, so they must agree exactly.
#include <cmath>
#include <limits>
#include <vector>

#include "tests/trainer/cuda/cuda_step_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

std::vector<float> labelValues(std::int64_t batch, std::int64_t classes, std::uint32_t seed) {
  std::vector<float> labels = randomValues(batch, 0.0f, static_cast<float>(classes), seed);
  for (float& label : labels) label = std::floor(label);
  return labels;
}

std::string planted(float value) { return std::isnan(value) ? "NaN" : std::to_string(value); }

// Two steps, so the second writes into the next slot at the scale the first step's end left.
TEST_F(CudaStepTest, SoftmaxCrossEntropyWritesItsLossAtTheDeviceScaleIntoTheStepLog) {
  const std::int64_t batch = 67;
  const std::int64_t classes = 10;
  for (DType logits_dtype : kDtypes) {
    for (DType grad_dtype : {DType::kFp32, logits_dtype}) {
      const std::string what = std::string("logits ") + dtypeName(logits_dtype) + " dlogits " + dtypeName(grad_dtype);
      ScalerState initial = dynamicScaler(1024.0f, 3);
      initial.growth_interval = 1;  // every clean step doubles the scale
      StatePair state = states(initial, static_cast<std::int32_t>(batch));
      for (std::uint32_t step = 0; step < 2; ++step) {
        const TensorPair logits = random({batch, classes}, logits_dtype, 1000 + step, -5.0f, 5.0f);
        const TensorPair labels = upload({batch}, DType::kFp32, labelValues(batch, classes, 1010 + step));
        TensorPair dlogits = zeros({batch, classes}, grad_dtype);
        cpu_->softmaxCrossEntropy(logits.cpu, labels.cpu, state.cpu, dlogits.cpu);
        gpu_->softmaxCrossEntropy(logits.gpu, labels.gpu, state.gpu, dlogits.gpu);
        const double grad_factor = 1024.0 * std::exp2(step) / static_cast<double>(batch);
        expectClose(gpuValues(dlogits), cpuValues(dlogits), unitSpacing(grad_dtype) + 1e-5, 1e-6 * grad_factor,
                    what + " dlogits of step " + std::to_string(step));
        finishStep(state);
      }
      const StepLogRead log = expectSameLog(state, 0, 2, what);
      ASSERT_EQ(log.entries.size(), 2u);
      EXPECT_EQ(log.entries[0].rows, batch) << what;
      EXPECT_GT(log.entries[0].correct, 0) << what;
      EXPECT_EQ(log.entries[1].loss_scale, 2048.0f) << what;
      EXPECT_EQ(log.row_losses[1].size(), static_cast<std::size_t>(batch)) << what;
    }
  }
}

TEST_F(CudaStepTest, CountCorrectMatchesTheCpu) {
  for (DType dtype : kDtypes) {
    const TensorPair logits = random({300, 7}, dtype, 1010);
    const TensorPair labels = upload({300}, DType::kFp32, labelValues(300, 7, 1011));
    const std::int64_t expected = cpu_->countCorrect(logits.cpu, labels.cpu);
    EXPECT_GT(expected, 0);
    EXPECT_EQ(gpu_->countCorrect(logits.gpu, labels.gpu), expected) << dtypeName(dtype);
  }
}

// Gradients of mixed dtypes in one op; the planted value lies in the second chunk of a tensor.
TEST_F(CudaStepTest, UnscaleGradientsFindsAPlantedInfinityOrNaNAndKeepsTheFlag) {
  for (DType dtype : kDtypes) {
    for (float value : {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      const std::string what = std::string(dtypeName(dtype)) + " planted " + planted(value);
      StatePair state = states(dynamicScaler(512.0f));
      std::vector<TensorPair> grads;
      grads.push_back(random({100}, dtype, 1020, -1000.0f, 1000.0f));
      std::vector<float> middle = randomValues(70000, -1000.0f, 1000.0f, 1021);
      middle[66000] = value;
      grads.push_back(upload({70000}, dtype, middle));
      grads.push_back(zeros({0}, dtype));
      grads.push_back(random({7}, DType::kFp32, 1022, -1000.0f, 1000.0f));
      cpu_->unscaleGradients(cpuTensors(grads), state.cpu);
      gpu_->unscaleGradients(gpuTensors(grads), state.gpu);
      const StepLogRead log = expectSameLog(state, 0, 0, what);
      EXPECT_EQ(log.scaler.found_inf, value != 0.0f ? 1 : 0) << what;
      for (const TensorPair& g : grads) expectBitEqual(gpuValues(g), cpuValues(g), what + " unscaled values");

      // Clean gradients later in the step leave the flag as it is: only finishStep clears it.
      std::vector<TensorPair> clean;
      clean.push_back(random({50}, dtype, 1023));
      cpu_->unscaleGradients(cpuTensors(clean), state.cpu);
      gpu_->unscaleGradients(gpuTensors(clean), state.gpu);
      EXPECT_EQ(expectSameLog(state, 0, 0, what + " then clean").scaler.found_inf, value != 0.0f ? 1 : 0) << what;
    }
  }
}

// Norm only (max_norm 0), a norm under the limit, and one over it (clipped), over gradients of
// mixed dtypes spanning several chunks and an empty one.
TEST_F(CudaStepTest, ClipGradientsMatchesTheCpuNormAndClippedValues) {
  for (float max_norm : {0.0f, 1e6f, 10.0f}) {
    const std::string what = "max_norm " + std::to_string(max_norm);
    StatePair state = states(dynamicScaler(1.0f));
    std::vector<TensorPair> grads;
    grads.push_back(random({1000}, DType::kFp32, 1030));
    grads.push_back(random({3'000'001}, DType::kFp16, 1031));
    grads.push_back(zeros({0}, DType::kBf16));
    grads.push_back(random({70000}, DType::kBf16, 1032));
    cpu_->clipGradients(cpuTensors(grads), max_norm, state.cpu);
    gpu_->clipGradients(gpuTensors(grads), max_norm, state.gpu);

    const StepLogRead expected = cpu_->readStepLog(state.cpu, 0, 1);
    const StepLogRead actual = gpu_->readStepLog(state.gpu, 0, 1);
    // About a million squares of values in [-1, 1]: a norm near 1000.
    EXPECT_GT(expected.entries[0].gradient_norm_squared, 9e5) << what;
    EXPECT_NEAR(actual.entries[0].gradient_norm_squared, expected.entries[0].gradient_norm_squared,
                1e-9 * expected.entries[0].gradient_norm_squared)
        << what;
    const bool clipped = max_norm == 10.0f;
    EXPECT_EQ(expected.scaler.clip_factor != 1.0f, clipped) << what;
    // The factor is rounded once from norms a few FP64 roundings apart: one FP32 step at most.
    const double one_step = std::ldexp(1.0, -23) * expected.scaler.clip_factor;
    EXPECT_NEAR(actual.scaler.clip_factor, expected.scaler.clip_factor, one_step) << what;
    for (const TensorPair& g : grads) {
      if (!clipped) {
        expectBitEqual(gpuValues(g), cpuValues(g), what + " unclipped values");
      } else {
        // One rounding of each value may go the other way when the factors differ by a step.
        expectClose(gpuValues(g), cpuValues(g), unitSpacing(g.cpu.dtype()) + std::ldexp(1.0, -22),
                    smallestValue(g.cpu.dtype()), what + " clipped values");
      }
    }
  }
}

TEST_F(CudaStepTest, ClipGradientsOfASkippedStepRecordsNoNormAndChangesNothing) {
  ScalerState initial = dynamicScaler(1.0f);
  initial.found_inf = 1;
  StatePair state = states(initial);
  std::vector<TensorPair> grads;
  grads.push_back(random({5000}, DType::kFp32, 1035, -100.0f, 100.0f));
  grads.push_back(random({100}, DType::kFp16, 1036, -100.0f, 100.0f));
  const std::vector<float> before = gpuValues(grads[0]);
  cpu_->clipGradients(cpuTensors(grads), 1.0f, state.cpu);
  gpu_->clipGradients(gpuTensors(grads), 1.0f, state.gpu);
  const StepLogRead log = expectSameLog(state, 0, 1, "skipped step");
  EXPECT_EQ(log.entries[0].gradient_norm_squared, 0.0);
  EXPECT_EQ(log.scaler.clip_factor, 1.0f);
  expectBitEqual(gpuValues(grads[0]), before, "gradients of a skipped step");
  for (const TensorPair& g : grads) expectBitEqual(gpuValues(g), cpuValues(g), "gradients of a skipped step");
}

TEST_F(CudaStepTest, GradientHistogramsCountExactlyLikeTheCpuAtTheDeviceScale) {
  // Magnitudes from 2^-50 to 2^20, so both clamped end bins fill; zeros, Inf and NaN among them.
  std::vector<float> values = randomValues(20000, -50.0f, 20.0f, 1040);
  const std::vector<float> signs = randomValues(20000, -1.0f, 1.0f, 1041);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::copysign(std::exp2(values[i]), signs[i]);
  values[10] = 0.0f;
  values[11] = -0.0f;
  values[12] = std::numeric_limits<float>::infinity();
  values[13] = std::numeric_limits<float>::quiet_NaN();
  std::vector<TensorPair> grads;
  for (DType dtype : kDtypes) grads.push_back(upload({static_cast<std::int64_t>(values.size())}, dtype, values));
  grads.push_back(zeros({0}, DType::kFp32));
  for (float scale : {1.0f, 65536.0f}) {
    StatePair state = states(dynamicScaler(scale));
    const std::vector<GradientHistogram> expected = cpu_->gradientHistograms(readOnly(cpuTensors(grads)), state.cpu);
    const std::vector<GradientHistogram> actual = gpu_->gradientHistograms(readOnly(gpuTensors(grads)), state.gpu);
    ASSERT_EQ(actual.size(), grads.size());
    ASSERT_EQ(expected.size(), grads.size());
    for (std::size_t t = 0; t < grads.size(); ++t) {
      const std::string what = std::string(dtypeName(grads[t].cpu.dtype())) + " tensor " + std::to_string(t) +
                               " scale " + std::to_string(scale);
      // FP16 storage has already flushed everything below 2^-24; the wider types keep values that
      // would underflow at these scales.
      if (grads[t].cpu.dtype() != DType::kFp16 && grads[t].cpu.numel() > 0) {
        EXPECT_GT(expected[t].underflow_at_scale, 0u) << what;
      }
      EXPECT_EQ(actual[t].bins, expected[t].bins) << what;
      EXPECT_EQ(actual[t].zeros, expected[t].zeros) << what;
      EXPECT_EQ(actual[t].non_finite, expected[t].non_finite) << what;
      EXPECT_EQ(actual[t].underflow_at_scale, expected[t].underflow_at_scale) << what;
      EXPECT_EQ(actual[t].count, expected[t].count) << what;
    }
  }
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
