#pragma once
// What a kernel gets of a tensor: its device pointer and its storage type. Kernels read every
// element as float and write floats back rounded to the destination's type, so one kernel serves
// any mix of FP32/FP16/BF16 operands; the switch on the type is uniform across a warp and costs
// next to nothing in these memory-bound kernels.

#include <cstdint>

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer::cuda {

struct ReadView {
  const void* data = nullptr;
  DType dtype = DType::kFp32;
};

struct WriteView {
  void* data = nullptr;
  DType dtype = DType::kFp32;
};

}  // namespace ampscope::trainer::cuda

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ampscope::trainer::cuda {

__device__ __forceinline__ float loadElement(const void* data, DType dtype, std::int64_t i) {
  switch (dtype) {
    case DType::kFp16: return __half2float(static_cast<const __half*>(data)[i]);
    case DType::kBf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[i]);
    case DType::kFp32: break;
  }
  return static_cast<const float*>(data)[i];
}

__device__ __forceinline__ float load(ReadView view, std::int64_t i) { return loadElement(view.data, view.dtype, i); }
__device__ __forceinline__ float load(WriteView view, std::int64_t i) { return loadElement(view.data, view.dtype, i); }

// Round to nearest, ties to even; FP16 overflows to Inf: the rounding the CPU backend emulates
// with roundTo() (trainer/numerics/low_precision.h).
__device__ __forceinline__ void store(WriteView view, std::int64_t i, float value) {
  switch (view.dtype) {
    case DType::kFp16: static_cast<__half*>(view.data)[i] = __float2half_rn(value); return;
    case DType::kBf16: static_cast<__nv_bfloat16*>(view.data)[i] = __float2bfloat16_rn(value); return;
    case DType::kFp32: break;
  }
  static_cast<float*>(view.data)[i] = value;
}

}  // namespace ampscope::trainer::cuda
#endif
