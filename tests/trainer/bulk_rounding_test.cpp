#include "trainer/backend/cpu/bulk_rounding.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "trainer/numerics/low_precision.h"

namespace ampscope::trainer {
namespace {

std::uint32_t bits(float value) {
  std::uint32_t b;
  std::memcpy(&b, &value, sizeof(b));
  return b;
}

float fromBits(std::uint32_t b) {
  float value;
  std::memcpy(&value, &b, sizeof(value));
  return value;
}

// FP32 values where FP16 rounding can go wrong: for every sign, exponent and kept 10-bit
// mantissa, the dropped 13 bits just below, at and above the halfway point and at both ends (so
// ties to even, carries into the exponent and up to infinity, subnormal results, underflow to
// zero, infinities and NaNs are all covered), then a spread of other bit patterns.
std::vector<float> edgeValues() {
  std::vector<float> values;
  for (std::uint32_t high = 0; high < (1u << 19); ++high) {
    for (std::uint32_t low : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu}) {
      values.push_back(fromBits((high << 13) | low));
    }
  }
  for (std::uint64_t b = 0; b < (1ull << 32); b += 65521) values.push_back(fromBits(static_cast<std::uint32_t>(b)));
  return values;
}

TEST(BulkRoundingTest, HalfRoundingMatchesTheElementWiseReferenceBitForBit) {
  const std::vector<float> input = edgeValues();
  std::vector<float> bulk = input;
  // An odd count, so the tail after the last group of eight goes through the reference too.
  roundAll(bulk.data(), static_cast<std::int64_t>(bulk.size()) - 3, DType::kFp16);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i + 3 < input.size(); ++i) {
    const std::uint32_t expected = bits(roundToHalf(input[i]));
    if (bits(bulk[i]) != expected && ++mismatches <= 10) {
      ADD_FAILURE() << std::hex << "input 0x" << bits(input[i]) << ": bulk 0x" << bits(bulk[i]) << ", reference 0x"
                    << expected;
    }
  }
  EXPECT_EQ(mismatches, 0u);
  for (std::size_t i = input.size() - 3; i < input.size(); ++i) EXPECT_EQ(bits(bulk[i]), bits(input[i]));  // untouched
}

TEST(BulkRoundingTest, BfloatAndFloatGoThroughTheReference) {
  const std::vector<float> input = {1.0f, 1.00390625f, 3.14159265f, -65504.0f, 1e-30f,
                                    std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> bf16 = input;
  roundAll(bf16.data(), static_cast<std::int64_t>(bf16.size()), DType::kBf16);
  std::vector<float> fp32 = input;
  roundAll(fp32.data(), static_cast<std::int64_t>(fp32.size()), DType::kFp32);
  for (std::size_t i = 0; i < input.size(); ++i) {
    EXPECT_EQ(bits(bf16[i]), bits(roundToBf16(input[i]))) << i;
    EXPECT_EQ(bits(fp32[i]), bits(input[i])) << i;
  }
}

TEST(BulkRoundingTest, SaysWhetherTheHardwarePathIsInUse) {
#if defined(__x86_64__) && !defined(__clang__)
  // Every x86 processor these machines and CI run on has F16C (Ivy Bridge, 2012, and later).
  EXPECT_EQ(bulkHalfRoundingInHardware(), __builtin_cpu_supports("f16c") != 0);
#elif defined(__x86_64__)
  // clang 14's __builtin_cpu_supports does not know "f16c"; every x86 machine the tests run on has it.
  EXPECT_TRUE(bulkHalfRoundingInHardware());
#else
  EXPECT_FALSE(bulkHalfRoundingInHardware());
#endif
}

}  // namespace
}  // namespace ampscope::trainer
