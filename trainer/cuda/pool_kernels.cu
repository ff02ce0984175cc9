#include "trainer/cuda/kernels.h"

#include <string>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

constexpr int kWindowValues = static_cast<int>(kMaxLowPrecisionPoolWindow * kMaxLowPrecisionPoolWindow);

// The window at (top, left) of a plane as floats laid out window x window, for the shared math
// that takes a float plane. Only used for 16-bit storage.
__device__ void widenWindow(ReadView x, std::int64_t plane_base, std::int64_t width, std::int64_t top,
                            std::int64_t left, std::int64_t window, float* out) {
  for (std::int64_t i = 0; i < window; ++i) {
    for (std::int64_t j = 0; j < window; ++j) out[i * window + j] = load(x, plane_base + (top + i) * width + left + j);
  }
}

__device__ float windowValue(bool max, ReadView x, std::int64_t plane_base, const PoolShape& s, std::int64_t top,
                             std::int64_t left) {
  if (x.dtype == DType::kFp32) {
    return math::poolWindow(max, static_cast<const float*>(x.data) + plane_base, s.w, top, left, s.window);
  }
  float values[kWindowValues];
  widenWindow(x, plane_base, s.w, top, left, s.window, values);
  return math::poolWindow(max, values, s.window, 0, 0, s.window);
}

// The in-plane flat index of the window's maximum (the first one on ties).
__device__ std::int64_t windowArgmax(ReadView x, std::int64_t plane_base, const PoolShape& s, std::int64_t top,
                                     std::int64_t left) {
  if (x.dtype == DType::kFp32) {
    return math::poolArgmax(static_cast<const float*>(x.data) + plane_base, s.w, top, left, s.window);
  }
  float values[kWindowValues];
  widenWindow(x, plane_base, s.w, top, left, s.window, values);
  const std::int64_t local = math::poolArgmax(values, s.window, 0, 0, s.window);
  return (top + local / s.window) * s.w + left + local % s.window;
}

__global__ void poolForwardKernel(bool max, PoolShape s, ReadView x, WriteView y) {
  const std::int64_t count = s.planes * s.p * s.q;
  for (std::int64_t o = firstIndex(); o < count; o += gridStride()) {
    const std::int64_t plane = o / (s.p * s.q);
    const std::int64_t oy = (o / s.q) % s.p;
    const std::int64_t ox = o % s.q;
    store(y, o, windowValue(max, x, plane * s.h * s.w, s, oy * s.stride, ox * s.stride));
  }
}

// One thread per input pixel gathers from the windows that cover it, in the same (row, column)
// order as the CPU backend scatters, so the FP32 sums match it exactly.
__global__ void poolBackwardKernel(bool max, PoolShape s, ReadView x, ReadView dy, WriteView dx) {
  const std::int64_t count = s.planes * s.h * s.w;
  const auto window_size = static_cast<float>(s.window * s.window);
  for (std::int64_t i = firstIndex(); i < count; i += gridStride()) {
    const std::int64_t plane = i / (s.h * s.w);
    const std::int64_t in_plane = i % (s.h * s.w);
    const std::int64_t y = in_plane / s.w;
    const std::int64_t xpos = in_plane % s.w;
    // Windows oy with oy*stride <= y < oy*stride + window.
    const std::int64_t first_oy = y < s.window ? 0 : (y - s.window + s.stride) / s.stride;
    const std::int64_t first_ox = xpos < s.window ? 0 : (xpos - s.window + s.stride) / s.stride;
    const std::int64_t last_oy = y / s.stride < s.p - 1 ? y / s.stride : s.p - 1;
    const std::int64_t last_ox = xpos / s.stride < s.q - 1 ? xpos / s.stride : s.q - 1;
    float sum = 0.0f;
    for (std::int64_t oy = first_oy; oy <= last_oy; ++oy) {
      for (std::int64_t ox = first_ox; ox <= last_ox; ++ox) {
        const float d = load(dy, (plane * s.p + oy) * s.q + ox);
        if (!max) {
          sum += d / window_size;
        } else if (windowArgmax(x, plane * s.h * s.w, s, oy * s.stride, ox * s.stride) == in_plane) {
          sum += d;
        }
      }
    }
    store(dx, i, sum);
  }
}

void checkWindow(const PoolShape& shape, DType dtype) {
  if (dtype != DType::kFp32 && shape.window > kMaxLowPrecisionPoolWindow) {
    throw BackendError("CUDA backend", "pooling over " + std::string(dtypeName(dtype)) + " takes windows up to " +
                                           std::to_string(kMaxLowPrecisionPoolWindow) + ", not " +
                                           std::to_string(shape.window));
  }
}

}  // namespace

void launchPoolForward(bool max, const PoolShape& shape, ReadView x, WriteView y, cudaStream_t stream) {
  checkWindow(shape, x.dtype);
  const std::int64_t count = shape.planes * shape.p * shape.q;
  if (count == 0) return;
  poolForwardKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(max, shape, x, y);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchPoolBackward(bool max, const PoolShape& shape, ReadView x, ReadView dy, WriteView dx, cudaStream_t stream) {
  checkWindow(shape, x.dtype);
  const std::int64_t count = shape.planes * shape.h * shape.w;
  if (count == 0) return;
  poolBackwardKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(max, shape, x, dy, dx);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
