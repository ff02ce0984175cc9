#include "trainer/cuda/kernels.h"

#include <string>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

constexpr int kWindowValues = static_cast<int>(kMaxLowPrecisionPoolWindow * kMaxLowPrecisionPoolWindow);

__device__ math::ActivationIndex inputIndex(const PoolShape& s) {
  return {.c = s.c, .h = s.h, .w = s.w, .channels_last = s.channels_last};
}
__device__ math::ActivationIndex outputIndex(const PoolShape& s) {
  return {.c = s.c, .h = s.p, .w = s.q, .channels_last = s.channels_last};
}

// An element's (image, channel, y, x) from its offset in an activation of `index`'s extents.
struct Position {
  std::int64_t image, channel, y, x;
};
__device__ Position positionOf(const math::ActivationIndex& index, std::int64_t offset) {
  if (index.channels_last) {
    const std::int64_t channel = offset % index.c;
    const std::int64_t pixel = offset / index.c;
    return {pixel / (index.h * index.w), channel, (pixel / index.w) % index.h, pixel % index.w};
  }
  const std::int64_t plane = offset / (index.h * index.w);
  return {plane / index.c, plane % index.c, (offset / index.w) % index.h, offset % index.w};
}

// The window at (top, left) of a plane as floats laid out window x window, for the shared math
// that takes a float plane. Only used for 16-bit storage.
__device__ void widenWindow(ReadView x, std::int64_t plane_base, math::PlanePitch pitch, std::int64_t top,
                            std::int64_t left, std::int64_t window, float* out) {
  for (std::int64_t i = 0; i < window; ++i) {
    for (std::int64_t j = 0; j < window; ++j) {
      out[i * window + j] = load(x, plane_base + (top + i) * pitch.row + (left + j) * pitch.column);
    }
  }
}

__device__ float windowValue(bool max, ReadView x, std::int64_t plane_base, math::PlanePitch pitch,
                             const PoolShape& s, std::int64_t top, std::int64_t left) {
  if (x.dtype == DType::kFp32) {
    return math::poolWindow(max, static_cast<const float*>(x.data) + plane_base, pitch, top, left, s.window);
  }
  float values[kWindowValues];
  widenWindow(x, plane_base, pitch, top, left, s.window, values);
  return math::poolWindow(max, values, math::PlanePitch{s.window, 1}, 0, 0, s.window);
}

// The in-plane offset of the window's maximum (the first one on ties).
__device__ std::int64_t windowArgmax(ReadView x, std::int64_t plane_base, math::PlanePitch pitch, const PoolShape& s,
                                     std::int64_t top, std::int64_t left) {
  if (x.dtype == DType::kFp32) {
    return math::poolArgmax(static_cast<const float*>(x.data) + plane_base, pitch, top, left, s.window);
  }
  float values[kWindowValues];
  widenWindow(x, plane_base, pitch, top, left, s.window, values);
  const std::int64_t local = math::poolArgmax(values, math::PlanePitch{s.window, 1}, 0, 0, s.window);
  return (top + local / s.window) * pitch.row + (left + local % s.window) * pitch.column;
}

__global__ void poolForwardKernel(bool max, PoolShape s, ReadView x, WriteView y) {
  const math::ActivationIndex in = inputIndex(s);
  const math::ActivationIndex out = outputIndex(s);
  const std::int64_t count = s.n * s.c * s.p * s.q;
  for (std::int64_t o = firstIndex(); o < count; o += gridStride()) {
    const Position at = positionOf(out, o);
    store(y, o, windowValue(max, x, in.planeBase(at.image, at.channel), in.pitch(), s, at.y * s.stride,
                            at.x * s.stride));
  }
}

// One thread per input pixel gathers from the windows that cover it, in the same (row, column)
// order as the CPU backend scatters, so the FP32 sums match it exactly.
__global__ void poolBackwardKernel(bool max, PoolShape s, ReadView x, ReadView dy, WriteView dx) {
  const math::ActivationIndex in = inputIndex(s);
  const math::ActivationIndex out = outputIndex(s);
  const math::PlanePitch pitch = in.pitch();
  const std::int64_t count = s.n * s.c * s.h * s.w;
  const auto window_size = static_cast<float>(s.window * s.window);
  for (std::int64_t i = firstIndex(); i < count; i += gridStride()) {
    const Position at = positionOf(in, i);
    const std::int64_t plane_base = in.planeBase(at.image, at.channel);
    const std::int64_t in_plane = at.y * pitch.row + at.x * pitch.column;
    // Windows oy with oy*stride <= y < oy*stride + window.
    const std::int64_t first_oy = at.y < s.window ? 0 : (at.y - s.window + s.stride) / s.stride;
    const std::int64_t first_ox = at.x < s.window ? 0 : (at.x - s.window + s.stride) / s.stride;
    const std::int64_t last_oy = at.y / s.stride < s.p - 1 ? at.y / s.stride : s.p - 1;
    const std::int64_t last_ox = at.x / s.stride < s.q - 1 ? at.x / s.stride : s.q - 1;
    float sum = 0.0f;
    for (std::int64_t oy = first_oy; oy <= last_oy; ++oy) {
      for (std::int64_t ox = first_ox; ox <= last_ox; ++ox) {
        const float d = load(dy, out.at(at.image, at.channel, oy, ox));
        if (!max) {
          sum += d / window_size;
        } else if (windowArgmax(x, plane_base, pitch, s, oy * s.stride, ox * s.stride) == in_plane) {
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
  const std::int64_t count = shape.n * shape.c * shape.p * shape.q;
  if (count == 0) return;
  poolForwardKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(max, shape, x, y);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchPoolBackward(bool max, const PoolShape& shape, ReadView x, ReadView dy, WriteView dx, cudaStream_t stream) {
  checkWindow(shape, x.dtype);
  const std::int64_t count = shape.n * shape.c * shape.h * shape.w;
  if (count == 0) return;
  poolBackwardKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(max, shape, x, dy, dx);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
