#include "trainer/backend/cpu/bulk_rounding.h"

#include "trainer/numerics/low_precision.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ampscope::trainer {

namespace {

#if defined(__x86_64__)
// Compiled for F16C whatever the build's target, and called only where the processor has it.
__attribute__((target("avx,f16c"))) void roundToHalfF16c(float* values, std::int64_t count) {
  std::int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 wide = _mm256_loadu_ps(values + i);
    const __m128i half = _mm256_cvtps_ph(wide, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(values + i, _mm256_cvtph_ps(half));
  }
  for (; i < count; ++i) values[i] = roundToHalf(values[i]);
}
#endif

// The element-wise reference: BF16, and FP16 on processors without F16C.
void roundAllOneByOne(float* values, std::int64_t count, DType dtype) {
  if (dtype == DType::kFp32) return;
  for (std::int64_t i = 0; i < count; ++i) values[i] = roundTo(dtype, values[i]);
}

bool detectF16c() {
#if defined(__x86_64__)
  // From CPUID rather than __builtin_cpu_supports, whose "f16c" older clang does not know.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const unsigned needed = bit_OSXSAVE | bit_AVX | bit_F16C;
  if ((ecx & needed) != needed) return false;
  // AVX registers are usable only where the system saves them on a switch (XCR0 bits 1 and 2).
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  return (xcr0_low & 0x6u) == 0x6u;
#else
  return false;
#endif
}

}  // namespace

bool bulkHalfRoundingInHardware() {
  static const bool has_f16c = detectF16c();
  return has_f16c;
}

void roundAll(float* values, std::int64_t count, DType dtype) {
#if defined(__x86_64__)
  if (dtype == DType::kFp16 && bulkHalfRoundingInHardware()) {
    roundToHalfF16c(values, count);
    return;
  }
#endif
  roundAllOneByOne(values, count, dtype);
}

}  // namespace ampscope::trainer
