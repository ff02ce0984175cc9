#pragma once
// FP16 (IEEE binary16) and BF16 storage emulated bit for bit: conversion from FP32 rounds to
// nearest, ties to even, as the GPU's cvt.rn does; FP16 overflows to infinity and keeps
// subnormals; NaN stays NaN. The CPU backend rounds at the same points as the CUDA kernels, so
// both see the same numbers.

#include <cstdint>
#include <cstring>

#include "trainer/numerics/dtype.h"
#include "trainer/numerics/host_device.h"

namespace ampscope::trainer {

AMPSCOPE_HD std::uint32_t floatBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

AMPSCOPE_HD float bitsToFloat(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

AMPSCOPE_HD std::uint16_t floatToHalfBits(float value) {
  const std::uint32_t bits = floatBits(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xffu;
  std::uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu) {  // Inf stays Inf; NaN stays a (quiet) NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0u));
  }
  // Re-bias from 127 to 15.
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 0x1f) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: Inf
  if (half_exponent <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit 1 into place, then round.
    if (half_exponent < -10) return sign;  // below half the smallest subnormal: rounds to zero
    mantissa |= 0x800000u;
    const auto shift = static_cast<std::uint32_t>(14 - half_exponent);
    const std::uint32_t kept = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    const std::uint32_t rounded = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | rounded);  // a carry into the exponent is correct
  }
  const std::uint32_t kept = mantissa >> 13;
  const std::uint32_t rest = mantissa & 0x1fffu;
  std::uint32_t result = (static_cast<std::uint32_t>(half_exponent) << 10) | kept;
  if (rest > 0x1000u || (rest == 0x1000u && (kept & 1u))) ++result;  // may carry up to Inf: correct
  return static_cast<std::uint16_t>(sign | result);
}

AMPSCOPE_HD float halfBitsToFloat(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  std::uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return bitsToFloat(sign);
    // Subnormal: normalise into an FP32 exponent.
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    return bitsToFloat(sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return bitsToFloat(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

AMPSCOPE_HD std::uint16_t floatToBf16Bits(float value) {
  const std::uint32_t bits = floatBits(value);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // keep NaN a NaN
  }
  // Round to nearest even on the 16 dropped bits; a carry may reach Inf, which is correct.
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

AMPSCOPE_HD float bf16BitsToFloat(std::uint16_t bf16) { return bitsToFloat(static_cast<std::uint32_t>(bf16) << 16); }

// The value an FP32 number has once stored in FP16 / BF16 and read back.
AMPSCOPE_HD float roundToHalf(float value) { return halfBitsToFloat(floatToHalfBits(value)); }
AMPSCOPE_HD float roundToBf16(float value) { return bf16BitsToFloat(floatToBf16Bits(value)); }

AMPSCOPE_HD float roundTo(DType dtype, float value) {
  switch (dtype) {
    case DType::kFp16: return roundToHalf(value);
    case DType::kBf16: return roundToBf16(value);
    case DType::kFp32: break;
  }
  return value;
}

// TF32 keeps FP32's exponent and 10 mantissa bits. Tensor Cores read FP32 inputs that way; the
// CPU backend rounds (to nearest, ties to even) where they would, for the tf32 mode.
AMPSCOPE_HD float roundToTf32(float value) {
  const std::uint32_t bits = floatBits(value);
  if ((bits & 0x7f800000u) == 0x7f800000u) return value;  // Inf and NaN as they are
  const std::uint32_t rounding = 0xfffu + ((bits >> 13) & 1u);
  return bitsToFloat((bits + rounding) & ~0x1fffu);
}

}  // namespace ampscope::trainer
