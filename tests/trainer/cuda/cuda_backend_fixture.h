#pragma once
// The CUDA backend checked against the CPU reference: the same inputs (rounded to the same dtype)
// go through both and the outputs must agree within bounds derived from how each side rounds.
// Every test skips, with the reason, where there is no usable GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "trainer/backend/backend.h"
#include "trainer/cuda/cuda_backend.h"

namespace ampscope::trainer::cuda_test {

// The relative spacing of the dtype's values: one rounding of a result may differ by this much
// between backends when their FP32 sums straddle a rounding boundary.
inline double unitSpacing(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return std::ldexp(1.0, -10);
    case DType::kBf16: return std::ldexp(1.0, -7);
    case DType::kFp32: break;
  }
  return std::ldexp(1.0, -23);
}

// The smallest positive value of the dtype (FP16 subnormals), an absolute floor for bounds.
inline double smallestValue(DType dtype) {
  return dtype == DType::kFp16 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -126);
}

inline std::vector<float> randomValues(std::int64_t count, float low, float high, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = distribution(generator);
  return values;
}

inline std::vector<float> absolute(std::vector<float> values) {
  for (float& v : values) v = std::fabs(v);
  return values;
}

// |actual[i] - expected[i]| <= bound[i] for every i, NaN only where NaN is expected and infinities
// equal. Reports how many values are off and the first few.
inline void expectWithin(const std::vector<float>& actual, const std::vector<float>& expected,
                         const std::vector<double>& bound, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  ASSERT_EQ(bound.size(), expected.size()) << what;
  std::size_t failures = 0;
  std::string first;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i];
    const double a = actual[i];
    bool ok = false;
    if (std::isnan(e)) {
      ok = std::isnan(a);
    } else if (std::isinf(e)) {
      ok = a == e;
    } else {
      ok = std::fabs(a - e) <= bound[i];
    }
    if (!ok && ++failures <= 5) {
      first += "\n  [" + std::to_string(i) + "] gpu " + std::to_string(a) + " cpu " + std::to_string(e) +
               " allowed " + std::to_string(bound[i]);
    }
  }
  EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << expected.size() << " values differ" << first;
}

// bound[i] = relative * |expected[i]| + absolute.
inline void expectClose(const std::vector<float>& actual, const std::vector<float>& expected, double relative,
                        double absolute_bound, const std::string& what) {
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) bound[i] = relative * std::fabs(expected[i]) + absolute_bound;
  expectWithin(actual, expected, bound, what);
}

inline void expectBitEqual(const std::vector<float>& actual, const std::vector<float>& expected,
                           const std::string& what) {
  expectClose(actual, expected, 0.0, 0.0, what);
}

// One tensor on each backend holding the same values.
struct TensorPair {
  Tensor cpu;
  Tensor gpu;
};

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    gpu_ = makeCudaBackend(&why_not);
    if (!gpu_) GTEST_SKIP() << "CUDA backend unavailable: " << why_not;
    cpu_ = makeCpuBackend();
  }

  TensorPair upload(const Shape& shape, DType dtype, const std::vector<float>& values) {
    TensorPair pair{cpu_->allocate(shape, dtype), gpu_->allocate(shape, dtype)};
    cpu_->upload(values, pair.cpu);
    gpu_->upload(values, pair.gpu);
    return pair;
  }

  TensorPair random(const Shape& shape, DType dtype, std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
    return upload(shape, dtype, randomValues(elementCount(shape), low, high, seed));
  }

  TensorPair zeros(const Shape& shape, DType dtype) {
    return {cpu_->allocate(shape, dtype), gpu_->allocate(shape, dtype)};
  }

  // The values of a pair as each backend holds them.
  std::vector<float> cpuValues(const TensorPair& pair) { return cpu_->download(pair.cpu); }
  std::vector<float> gpuValues(const TensorPair& pair) { return gpu_->download(pair.gpu); }

  void setTf32(bool enabled) {
    cpu_->setTf32(enabled);
    gpu_->setTf32(enabled);
  }

  std::unique_ptr<Backend> cpu_;
  std::unique_ptr<Backend> gpu_;
};

}  // namespace ampscope::trainer::cuda_test
