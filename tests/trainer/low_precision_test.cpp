#include "trainer/numerics/low_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ampscope::trainer {
namespace {

TEST(LowPrecisionTest, ExactHalfValuesHaveTheirIeeeBitPatterns) {
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bff);             // largest finite half
  EXPECT_EQ(floatToHalfBits(6.103515625e-05f), 0x0400);     // smallest normal, 2^-14
  EXPECT_EQ(floatToHalfBits(5.9604644775390625e-08f), 0x0001);  // smallest subnormal, 2^-24
  EXPECT_EQ(floatToHalfBits(0.333251953125f), 0x3555);
}

TEST(LowPrecisionTest, HalfRoundsToNearestWithTiesToEven) {
  // 1 + 2^-11 lies halfway between 1 (even mantissa) and 1 + 2^-10: ties go to the even one.
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above the halfway point rounds up.
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
}

TEST(LowPrecisionTest, HalfOverflowsToInfinityAndKeepsNaN) {
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7c00);  // rounds past 65504: infinity
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7bff);  // still rounds down to the largest finite
  EXPECT_EQ(floatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalfBits(-1e10f), 0xfc00);
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  const std::uint16_t nan = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(halfBitsToFloat(nan)));
}

TEST(LowPrecisionTest, HalfSubnormalsRoundAndUnderflowToZero) {
  const float smallest = std::ldexp(1.0f, -24);
  EXPECT_EQ(floatToHalfBits(3 * smallest), 0x0003);
  EXPECT_EQ(floatToHalfBits(2.5f * smallest), 0x0002);  // tie: to even
  EXPECT_EQ(floatToHalfBits(3.5f * smallest), 0x0004);  // tie: to even
  EXPECT_EQ(floatToHalfBits(0.5f * smallest), 0x0000);  // exactly half the smallest: to even (0)
  EXPECT_EQ(floatToHalfBits(0.75f * smallest), 0x0001);
  EXPECT_EQ(floatToHalfBits(1e-10f), 0x0000);           // gradients this small vanish in FP16
  EXPECT_EQ(floatToHalfBits(-1e-10f), 0x8000);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)), 0x0400);
}

TEST(LowPrecisionTest, EveryHalfValueRoundTripsThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    const float value = halfBitsToFloat(half);
    if (std::isnan(value)) continue;
    ASSERT_EQ(floatToHalfBits(value), half) << std::hex << bits;
  }
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfBitsToFloat(0x7bff), 65504.0f);
}

#if defined(__FLT16_MAX__)
// An independent reference: the compiler's own _Float16 conversion (round to nearest even).
TEST(LowPrecisionTest, AgreesWithTheCompilersFloat16OnManyValues) {
  std::uint32_t state = 12345;
  for (int i = 0; i < 2'000'000; ++i) {
    state = state * 1664525u + 1013904223u;  // a fixed sequence: the test is deterministic
    const float value = bitsToFloat(state);
    if (std::isnan(value)) continue;
    const _Float16 reference = static_cast<_Float16>(value);
    std::uint16_t reference_bits;
    std::memcpy(&reference_bits, &reference, sizeof(reference_bits));
    ASSERT_EQ(floatToHalfBits(value), reference_bits) << value;
  }
}
#endif

TEST(LowPrecisionTest, Bf16KeepsFloatRangeAndRoundsToNearestEven) {
  EXPECT_EQ(floatToBf16Bits(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16Bits(-2.0f), 0xc000);
  EXPECT_EQ(floatToBf16Bits(3.0e38f), 0x7f62);  // no overflow where FP16 has long gone to Inf
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even keeps 1.
  EXPECT_EQ(floatToBf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBf16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(floatToBf16Bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to Inf
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(floatToBf16Bits(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(roundToBf16(1e-10f), bf16BitsToFloat(floatToBf16Bits(1e-10f)));
  EXPECT_NE(roundToBf16(1e-10f), 0.0f);  // where FP16 underflows, BF16 keeps the value
}

}  // namespace
}  // namespace ampscope::trainer
