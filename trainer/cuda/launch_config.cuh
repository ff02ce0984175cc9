#pragma once
// Launch shapes shared by the kernels: grid-stride loops over 64-bit element counts, and a
// block-wide sum for the reductions (one block per channel or row).

#include <cuda_runtime.h>

#include <cstdint>

namespace ampscope::trainer::cuda {

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
