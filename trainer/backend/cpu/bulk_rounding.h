#pragma once
// FP16/BF16 storage emulated over whole tensors on the CPU. The element-wise conversions in
// trainer/numerics/low_precision.h are the reference (and what the CUDA kernels run); done one
// value at a time they cost about 10 ns each in FP16, more than the arithmetic they follow. On
// x86 processors with F16C the hardware converts eight values at once with the same rounding
// (to nearest, ties to even; FP16 subnormals kept, overflow to infinity, NaN kept a quiet NaN),
// and the result is the same bit for bit (tested against the reference).

#include <cstdint>

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

// Rounds every value to what it is once stored in dtype and read back, in place.
void roundAll(float* values, std::int64_t count, DType dtype);

// Whether roundAll converts FP16 with the processor's F16C instructions.
bool bulkHalfRoundingInHardware();

}  // namespace ampscope::trainer
