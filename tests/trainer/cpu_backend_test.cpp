#include "trainer/backend/backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

TEST_F(CpuBackendTest, UnscaleAndCheckFindsInfAndNanAndUnscalesEverything) {
  Tensor clean = make({2}, DType::kFp32, {1024.0f, -2048.0f});
  Tensor overflowed = make({2}, DType::kFp32, {std::numeric_limits<float>::infinity(), 8.0f});
  std::vector<Tensor*> grads = {&clean};
  EXPECT_FALSE(backend_->unscaleAndCheck(grads, 1.0f / 1024.0f));
  EXPECT_EQ(backend_->download(clean), (std::vector<float>{1.0f, -2.0f}));
  grads.push_back(&overflowed);
  EXPECT_TRUE(backend_->unscaleAndCheck(grads, 0.5f));
  Tensor nan = make({1}, DType::kFp32, {std::nanf("")});
  std::vector<Tensor*> only_nan = {&nan};
  EXPECT_TRUE(backend_->unscaleAndCheck(only_nan, 1.0f));
}

TEST_F(CpuBackendTest, GradientHistogramBinsByPowerOfTwoAndCountsFp16UnderflowAtTheScale) {
  const Tensor g = make({6}, DType::kFp32, {0.0f, 1.5f, -0.25f, 1e-9f, std::numeric_limits<float>::infinity(), 3e-8f});
  const GradientHistogram at_one = backend_->gradientHistogram(g, 1.0f);
  EXPECT_EQ(at_one.count, 6u);
  EXPECT_EQ(at_one.zeros, 1u);
  EXPECT_EQ(at_one.non_finite, 1u);
  EXPECT_EQ(at_one.bins[static_cast<std::size_t>(0 - kHistogramMinExponent)], 1u);   // 1.5 in [1, 2)
  EXPECT_EQ(at_one.bins[static_cast<std::size_t>(-2 - kHistogramMinExponent)], 1u);  // 0.25
  EXPECT_EQ(at_one.underflow_at_scale, 1u);  // 1e-9 rounds to zero in FP16; 3e-8 is a subnormal
  EXPECT_EQ(backend_->gradientHistogram(g, 65536.0f).underflow_at_scale, 0u);
}

TEST_F(CpuBackendTest, SgdStepFollowsTorchSemantics) {
  Tensor p = make({1}, DType::kFp32, {1.0f});
  const Tensor g = make({1}, DType::kFp32, {0.5f});
  Tensor buf = make({1}, DType::kFp32, {0.2f});
  backend_->sgdStep({0.1f, 0.9f, 0.01f}, p, g, buf);
  // buf = 0.9 * 0.2 + (0.5 + 0.01 * 1); p = 1 - 0.1 * buf
  EXPECT_FLOAT_EQ(backend_->download(buf)[0], 0.69f);
  EXPECT_FLOAT_EQ(backend_->download(p)[0], 1.0f - 0.069f);
}

TEST_F(CpuBackendTest, AdamWFirstStepMovesEachWeightByTheLearningRate) {
  Tensor p = make({2}, DType::kFp32, {1.0f, 1.0f});
  const Tensor g = make({2}, DType::kFp32, {0.003f, -40.0f});
  Tensor m = make({2}, DType::kFp32, {0.0f, 0.0f});
  Tensor v = make({2}, DType::kFp32, {0.0f, 0.0f});
  backend_->adamWStep({0.01f, 0.9f, 0.999f, 1e-8f, 0.1f}, 1, p, g, m, v);
  // Decay first (1 - lr * wd), then m_hat / sqrt(v_hat) = sign(g).
  const std::vector<float> out = backend_->download(p);
  EXPECT_NEAR(out[0], 0.999f - 0.01f, 1e-5f);
  EXPECT_NEAR(out[1], 0.999f + 0.01f, 1e-5f);
}

TEST_F(CpuBackendTest, AnFp16WeightLosesAnUpdateBelowHalfItsStep) {
  // FP16's step just below 1.0 is 2^-11: an update of 1e-4 rounds away, the papers' reason for
  // FP32 master weights.
  Tensor p = make({1}, DType::kFp16, {1.0f});
  const Tensor g = make({1}, DType::kFp16, {1e-4f});
  Tensor buf = make({1}, DType::kFp16, {0.0f});
  backend_->sgdStep({1.0f, 0.0f, 0.0f}, p, g, buf);
  EXPECT_EQ(backend_->download(p)[0], 1.0f);
  Tensor master = make({1}, DType::kFp32, {1.0f});
  Tensor buf32 = make({1}, DType::kFp32, {0.0f});
  backend_->sgdStep({1.0f, 0.0f, 0.0f}, master, g, buf32);
  EXPECT_LT(backend_->download(master)[0], 1.0f);
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
