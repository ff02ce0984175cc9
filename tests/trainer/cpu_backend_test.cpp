#include "trainer/backend/backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "trainer/amp/mixed_precision.h"
#include "trainer/backend/backend_error.h"

namespace ampscope::trainer {
namespace {

class CpuBackendTest : public ::testing::Test {
 protected:
  Tensor make(const Shape& shape, DType dtype, std::vector<float> values) {
    Tensor t = backend_->allocate(shape, dtype);
    backend_->upload(values, t);
    return t;
  }
  std::unique_ptr<Backend> backend_ = makeCpuBackend();
};

TEST_F(CpuBackendTest, HalfPrecisionGemmAccumulatesInFp32AndRoundsOnlyTheOutput) {
  // 1 + 2^-11 + 2^-11: in FP16 steps each addition is a tie that rounds back to 1; in FP32 the
  // sum is 1 + 2^-10, which FP16 holds exactly.
  const Tensor a = make({1, 3}, DType::kFp16, {1.0f, 0x1p-11f, 0x1p-11f});
  const Tensor b = make({3, 1}, DType::kFp16, {1.0f, 1.0f, 1.0f});
  Tensor c = backend_->allocate({1, 1}, DType::kFp16);
  GemmCall call;
  call.m = 1;
  call.n = 1;
  call.k = 3;
  backend_->gemm(call, a, b, c);
  EXPECT_EQ(backend_->download(c)[0], 1.0f + 0x1p-10f);
}

TEST_F(CpuBackendTest, Tf32ModeReadsFp32InputsWithTenMantissaBits) {
  const Tensor a = make({1, 1}, DType::kFp32, {1.0f + 0x1p-20f});
  const Tensor b = make({1, 1}, DType::kFp32, {1.0f});
  Tensor c = backend_->allocate({1, 1}, DType::kFp32);
  GemmCall call;
  call.m = call.n = call.k = 1;
  backend_->gemm(call, a, b, c);
  EXPECT_EQ(backend_->download(c)[0], 1.0f + 0x1p-20f);
  backend_->setTf32(true);
  backend_->gemm(call, a, b, c);
  EXPECT_EQ(backend_->download(c)[0], 1.0f);
}

TEST_F(CpuBackendTest, StoringInFp16AndBf16RoundsToNearestEven) {
  const Tensor source = make({4}, DType::kFp32, {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 70000.0f, 1.0f + 0x1p-8f});
  Tensor half = backend_->allocate({4}, DType::kFp16);
  backend_->copy(source, half);
  const std::vector<float> h = backend_->download(half);
  EXPECT_EQ(h[0], 1.0f);                   // tie: down to the even 1.0
  EXPECT_EQ(h[1], 1.0f + 0x1p-9f);         // tie: up to the even neighbour
  EXPECT_TRUE(std::isinf(h[2]));           // past 65504
  Tensor bf16 = backend_->allocate({4}, DType::kBf16);
  backend_->copy(source, bf16);
  const std::vector<float> b = backend_->download(bf16);
  EXPECT_EQ(b[2], 70144.0f);               // BF16 keeps FP32's range with 8 bits of precision
  EXPECT_EQ(b[3], 1.0f);                   // 1 + 2^-8 is a tie between 1 and 1 + 2^-7
}

// A step state of one slot at the given scale, dynamic scaling.
StepStateMemory stateAt(Backend& backend, float scale, std::int32_t slots = 1, std::int32_t rows = 4,
                        float learning_rate = 0.1f) {
  LossScalerConfig config;
  config.initial_scale = scale;
  ScalerState initial = initialScalerState(config, slots);
  initial.learning_rate = learning_rate;
  return backend.allocateStepState({slots, rows}, initial);
}

TEST_F(CpuBackendTest, UnscaleFindsInfAndNanAndUnscalesEverything) {
  Tensor clean = make({2}, DType::kFp32, {1024.0f, -2048.0f});
  Tensor overflowed = make({2}, DType::kFp32, {std::numeric_limits<float>::infinity(), 8.0f});
  StepStateMemory state = stateAt(*backend_, 1024.0f);
  std::vector<Tensor*> grads = {&clean};
  backend_->unscaleGradients(grads, state);
  EXPECT_EQ(backend_->readStepLog(state, 0, 0).scaler.found_inf, 0);
  EXPECT_EQ(backend_->download(clean), (std::vector<float>{1.0f, -2.0f}));
  grads.push_back(&overflowed);
  backend_->unscaleGradients(grads, state);
  EXPECT_EQ(backend_->readStepLog(state, 0, 0).scaler.found_inf, 1);
  StepStateMemory fresh = stateAt(*backend_, 1.0f);
  Tensor nan = make({1}, DType::kFp32, {std::nanf("")});
  std::vector<Tensor*> only_nan = {&nan};
  backend_->unscaleGradients(only_nan, fresh);
  EXPECT_EQ(backend_->readStepLog(fresh, 0, 0).scaler.found_inf, 1);
}

TEST_F(CpuBackendTest, GradientHistogramBinsByPowerOfTwoAndCountsFp16UnderflowAtTheScale) {
  const Tensor g = make({6}, DType::kFp32, {0.0f, 1.5f, -0.25f, 1e-9f, std::numeric_limits<float>::infinity(), 3e-8f});
  const std::vector<const Tensor*> grads = {&g};
  const GradientHistogram at_one = backend_->gradientHistograms(grads, stateAt(*backend_, 1.0f)).at(0);
  EXPECT_EQ(at_one.count, 6u);
  EXPECT_EQ(at_one.zeros, 1u);
  EXPECT_EQ(at_one.non_finite, 1u);
  EXPECT_EQ(at_one.bins[static_cast<std::size_t>(0 - kHistogramMinExponent)], 1u);   // 1.5 in [1, 2)
  EXPECT_EQ(at_one.bins[static_cast<std::size_t>(-2 - kHistogramMinExponent)], 1u);  // 0.25
  EXPECT_EQ(at_one.underflow_at_scale, 1u);  // 1e-9 rounds to zero in FP16; 3e-8 is a subnormal
  EXPECT_EQ(backend_->gradientHistograms(grads, stateAt(*backend_, 65536.0f)).at(0).underflow_at_scale, 0u);
}

TEST_F(CpuBackendTest, SgdStepFollowsTorchSemantics) {
  Tensor p = make({1}, DType::kFp32, {1.0f});
  const Tensor g = make({1}, DType::kFp32, {0.5f});
  Tensor buf = make({1}, DType::kFp32, {0.2f});
  const std::vector<ParameterTensors> params = {{&p, &g, &buf}};
  backend_->sgdStep({0.9f, 0.01f}, params, stateAt(*backend_, 1.0f, 1, 4, 0.1f));
  // buf = 0.9 * 0.2 + (0.5 + 0.01 * 1); p = 1 - 0.1 * buf
  EXPECT_FLOAT_EQ(backend_->download(buf)[0], 0.69f);
  EXPECT_FLOAT_EQ(backend_->download(p)[0], 1.0f - 0.069f);
}

TEST_F(CpuBackendTest, AdamWFirstStepMovesEachWeightByTheLearningRate) {
  Tensor p = make({2}, DType::kFp32, {1.0f, 1.0f});
  const Tensor g = make({2}, DType::kFp32, {0.003f, -40.0f});
  Tensor m = make({2}, DType::kFp32, {0.0f, 0.0f});
  Tensor v = make({2}, DType::kFp32, {0.0f, 0.0f});
  const std::vector<ParameterTensors> params = {{&p, &g, &m, &v}};
  backend_->adamWStep({0.9f, 0.999f, 1e-8f, 0.1f}, params, stateAt(*backend_, 1.0f, 1, 4, 0.01f));
  // Decay first (1 - lr * wd), then m_hat / sqrt(v_hat) = sign(g).
  const std::vector<float> out = backend_->download(p);
  EXPECT_NEAR(out[0], 0.999f - 0.01f, 1e-5f);
  EXPECT_NEAR(out[1], 0.999f + 0.01f, 1e-5f);
}

TEST_F(CpuBackendTest, AnFp16WeightLosesAnUpdateBelowHalfItsStepUnlessAMasterTakesIt) {
  // FP16's step just below 1.0 is 2^-11: an update of 1e-4 rounds away, the papers' reason for
  // FP32 master weights.
  Tensor p = make({1}, DType::kFp16, {1.0f});
  const Tensor g = make({1}, DType::kFp16, {1e-4f});
  Tensor buf = make({1}, DType::kFp16, {0.0f});
  const StepStateMemory state = stateAt(*backend_, 1.0f, 1, 4, 1.0f);
  backend_->sgdStep({0.0f, 0.0f}, std::vector<ParameterTensors>{{&p, &g, &buf}}, state);
  EXPECT_EQ(backend_->download(p)[0], 1.0f);
  // The master keeps the update; the FP16 weights written from it in the same op round it away
  // until the updates add up.
  Tensor master = make({1}, DType::kFp32, {1.0f});
  Tensor buf32 = make({1}, DType::kFp32, {0.0f});
  backend_->sgdStep({0.0f, 0.0f}, std::vector<ParameterTensors>{{&master, &g, &buf32, nullptr, &p}}, state);
  EXPECT_LT(backend_->download(master)[0], 1.0f);
  EXPECT_EQ(backend_->download(p)[0], 1.0f);
  for (int i = 0; i < 10; ++i) {
    backend_->sgdStep({0.0f, 0.0f}, std::vector<ParameterTensors>{{&master, &g, &buf32, nullptr, &p}}, state);
  }
  EXPECT_LT(backend_->download(p)[0], 1.0f);
}

TEST_F(CpuBackendTest, AStepStateWhoseSlotsDoNotFitItsLogIsRefused) {
  ScalerState initial = initialScalerState({}, 4);
  EXPECT_THROW(backend_->allocateStepState({2, 8}, initial), BackendError);  // 4 slots in a log of 2
  initial.slot = 4;
  EXPECT_THROW(backend_->allocateStepState({4, 8}, initial), BackendError);  // past the last slot
  initial.slot = 3;
  EXPECT_NO_THROW(backend_->allocateStepState({4, 8}, initial));
}

TEST_F(CpuBackendTest, ASkippedStepLeavesEveryParameterAsItWas) {
  Tensor p = make({2}, DType::kFp32, {1.0f, 2.0f});
  Tensor g = make({2}, DType::kFp32, {std::numeric_limits<float>::infinity(), 1.0f});
  Tensor buf = make({2}, DType::kFp32, {0.0f, 0.0f});
  StepStateMemory state = stateAt(*backend_, 8.0f);
  std::vector<Tensor*> grads = {&g};
  backend_->unscaleGradients(grads, state);
  backend_->clipGradients(grads, 1.0f, state);
  backend_->sgdStep({0.9f, 0.0f}, std::vector<ParameterTensors>{{&p, &g, &buf}}, state);
  backend_->finishStep(state);
  EXPECT_EQ(backend_->download(p), (std::vector<float>{1.0f, 2.0f}));
  const StepLogRead log = backend_->readStepLog(state, 0, 1);
  EXPECT_EQ(log.entries[0].skipped, 1);
  EXPECT_EQ(log.entries[0].loss_scale, 8.0f);
  EXPECT_EQ(log.entries[0].gradient_norm_squared, 0.0);
  EXPECT_EQ(log.scaler.scale, 4.0f);
  EXPECT_EQ(log.scaler.skipped_steps, 1);
}

TEST_F(CpuBackendTest, ClippingScalesEveryGradientToTheGlobalNorm) {
  Tensor a = make({2}, DType::kFp32, {3.0f, 0.0f});
  Tensor b = make({1}, DType::kFp32, {4.0f});
  StepStateMemory state = stateAt(*backend_, 1.0f);
  std::vector<Tensor*> grads = {&a, &b};
  backend_->clipGradients(grads, 1.0f, state);
  EXPECT_EQ(backend_->readStepLog(state, 0, 1).entries[0].gradient_norm_squared, 25.0);
  const float factor = static_cast<float>(1.0 / (5.0 + 1e-6));
  EXPECT_FLOAT_EQ(backend_->download(a)[0], 3.0f * factor);
  EXPECT_FLOAT_EQ(backend_->download(b)[0], 4.0f * factor);
}

TEST_F(CpuBackendTest, TheLossGoesIntoTheStepsLogEntryAtTheStatesScale) {
  const Tensor logits = make({2, 3}, DType::kFp32, {2.0f, 0.0f, 0.0f, 0.0f, 0.0f, 3.0f});
  const Tensor labels = make({2}, DType::kFp32, {0.0f, 1.0f});
  Tensor dlogits = backend_->allocate({2, 3}, DType::kFp32);
  StepStateMemory state = stateAt(*backend_, 4.0f, 2, 2);
  backend_->finishStep(state);  // on to slot 1
  backend_->softmaxCrossEntropy(logits, labels, state, dlogits);
  const StepLogRead log = backend_->readStepLog(state, 1, 1);
  EXPECT_EQ(log.entries[0].rows, 2);
  EXPECT_EQ(log.entries[0].correct, 1);
  ASSERT_EQ(log.row_losses[0].size(), 2u);
  EXPECT_GT(log.row_losses[0][1], log.row_losses[0][0]);  // row 1 got it wrong
  // d(mean loss * 4)/dlogit of the label is 4/2 * (p - 1) < 0
  EXPECT_LT(backend_->download(dlogits)[0], 0.0f);
  EXPECT_GT(backend_->download(dlogits)[0], -2.0f);
}

TEST_F(CpuBackendTest, AllocationFailureIsABackendErrorNamingTheTensor) {
  // 2^62 floats: more bytes than a size_t holds, so the pool's new[] fails before touching memory.
  constexpr std::int64_t kCount = std::int64_t{1} << 62;
  try {
    static_cast<void>(backend_->allocate({kCount}, DType::kFp16));
    FAIL() << "allocating 2^62 floats should have failed";
  } catch (const BackendError& error) {
    EXPECT_EQ(error.source(), "CPU backend");
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("CPU backend: out of host memory for a [4611686018427387904] float16 tensor", 0), 0u) << what;
  }
  // The backend goes on working.
  EXPECT_EQ(backend_->allocate({3}, DType::kFp32).numel(), 3);
}

}  // namespace
}  // namespace ampscope::trainer
