#pragma once
// What a kernel gets of a tensor: its device pointer and its storage type. Kernels read every
// element as float and write floats back rounded to the destination's type, so one kernel serves
// any mix of FP32/FP16/BF16 operands; the switch on the type is uniform across a warp and costs
// next to nothing in these memory-bound kernels. The device-code part (loads, stores and the
// launch shapes below) is seen only by nvcc, so host .cpp files can include this header.

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
#include <cuda_runtime.h>

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

// Launch shapes shared by the kernels: grid-stride loops over 64-bit element counts, and a
// block-wide sum for the reductions (one block per channel or row).

inline constexpr int kThreadsPerBlock = 256;
// Enough blocks to fill any current GPU several times over; grid-stride loops do the rest.
inline constexpr std::int64_t kMaxBlocks = 8192;

inline unsigned int blocksFor(std::int64_t count) {
  const std::int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned int>(blocks < kMaxBlocks ? (blocks < 1 ? 1 : blocks) : kMaxBlocks);
}

__device__ __forceinline__ std::int64_t firstIndex() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t gridStride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// The sum of `value` over the block, returned to every thread. blockDim.x must be a multiple of
// 32 (all our launches use kThreadsPerBlock). Every thread of the block must call it.
template <typename T>
__device__ T blockSum(T value) {
  __shared__ T warp_sums[32];
  __shared__ T total;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int warp = threadIdx.x / 32;
  __syncthreads();  // an earlier call may still be reading warp_sums / total
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    T sum = lane < blockDim.x / 32 ? warp_sums[lane] : T(0);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) total = sum;
  }
  __syncthreads();
  return total;
}

}  // namespace ampscope::trainer::cuda
#endif
