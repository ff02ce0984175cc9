#pragma once
// Launchers of max and average pooling (pool_kernels.cu) over NCHW planes with a square window.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

// PoolGeometry with the output extents worked out on the host (its p()/q() are host code).
struct PoolShape {
  std::int64_t planes = 0;  // n * c
  std::int64_t h = 0, w = 0;
  std::int64_t window = 0, stride = 0;
  std::int64_t p = 0, q = 0;
};

// 16-bit inputs are widened window by window into registers, which bounds the window; FP32
// inputs are read in place and take any window.
inline constexpr std::int64_t kMaxLowPrecisionPoolWindow = 8;

// Throw BackendError for a window the kernels cannot take.
void launchPoolForward(bool max, const PoolShape& shape, ReadView x, WriteView y, cudaStream_t stream);
void launchPoolBackward(bool max, const PoolShape& shape, ReadView x, ReadView dy, WriteView dx, cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
