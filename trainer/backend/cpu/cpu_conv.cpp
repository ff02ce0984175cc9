// Convolutions as GEMMs over im2col buffers: the filter [k, c*r*s] times the unfolded input
// [c*r*s, p*q] per image. Sums run in FP32 and each output is rounded once at the end, as cuDNN's
// Tensor Core kernels accumulate in FP32 and round in their epilogue.
#include <algorithm>
#include <vector>

#include "trainer/backend/cpu/cpu_backend.h"
#include "trainer/instrumentation/range_marker.h"

namespace ampscope::trainer {

namespace {

// col[(c*r + i)*s + j][y*q + x] = image[c][y*stride + i - pad][x*stride + j - pad] (0 outside).
void im2col(const ConvGeometry& g, const float* image, float* col) {
  const std::int64_t p = g.p();
  const std::int64_t q = g.q();
  for (std::int64_t c = 0; c < g.c; ++c) {
    for (std::int64_t i = 0; i < g.r; ++i) {
      for (std::int64_t j = 0; j < g.s; ++j) {
        float* row = col + ((c * g.r + i) * g.s + j) * p * q;
        for (std::int64_t y = 0; y < p; ++y) {
          const std::int64_t in_y = y * g.stride + i - g.pad;
          for (std::int64_t x = 0; x < q; ++x) {
            const std::int64_t in_x = x * g.stride + j - g.pad;
            const bool inside = in_y >= 0 && in_y < g.h && in_x >= 0 && in_x < g.w;
            row[y * q + x] = inside ? image[(c * g.h + in_y) * g.w + in_x] : 0.0f;
          }
        }
      }
    }
  }
}

// The adjoint of im2col: adds each column entry back onto the image pixel it came from.
void col2imAdd(const ConvGeometry& g, const float* col, float* image) {
  const std::int64_t p = g.p();
  const std::int64_t q = g.q();
  for (std::int64_t c = 0; c < g.c; ++c) {
    for (std::int64_t i = 0; i < g.r; ++i) {
      for (std::int64_t j = 0; j < g.s; ++j) {
        const float* row = col + ((c * g.r + i) * g.s + j) * p * q;
        for (std::int64_t y = 0; y < p; ++y) {
          const std::int64_t in_y = y * g.stride + i - g.pad;
          if (in_y < 0 || in_y >= g.h) continue;
          for (std::int64_t x = 0; x < q; ++x) {
            const std::int64_t in_x = x * g.stride + j - g.pad;
            if (in_x >= 0 && in_x < g.w) image[(c * g.h + in_y) * g.w + in_x] += row[y * q + x];
          }
        }
      }
    }
  }
}

}  // namespace

void CpuBackend::convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) {
  const ScopedHostOp host_op(HostOp::kConvForward, x.dtype());
  const std::int64_t crs = g.c * g.r * g.s;
  const std::int64_t pq = g.p() * g.q();
  std::vector<float> col(static_cast<std::size_t>(crs * pq));
  for (std::int64_t n = 0; n < g.n; ++n) {
    im2col(g, x.cpuData() + n * g.c * g.h * g.w, col.data());
    sgemm(false, false, g.k, pq, crs, 1.0f, filter.cpuData(), col.data(), 0.0f, y.cpuData() + n * g.k * pq,
          x.dtype());
  }
  roundAll(y.cpuData(), y.numel(), y.dtype());
}

void CpuBackend::convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) {
  const ScopedHostOp host_op(HostOp::kConvBackwardData, dy.dtype());
  const std::int64_t crs = g.c * g.r * g.s;
  const std::int64_t pq = g.p() * g.q();
  std::vector<float> col(static_cast<std::size_t>(crs * pq));
  std::fill(dx.cpuData(), dx.cpuData() + dx.numel(), 0.0f);
  for (std::int64_t n = 0; n < g.n; ++n) {
    sgemm(true, false, crs, pq, g.k, 1.0f, filter.cpuData(), dy.cpuData() + n * g.k * pq, 0.0f, col.data(),
          dy.dtype());
    col2imAdd(g, col.data(), dx.cpuData() + n * g.c * g.h * g.w);
  }
  roundAll(dx.cpuData(), dx.numel(), dx.dtype());
}

void CpuBackend::convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) {
  const ScopedHostOp host_op(HostOp::kConvBackwardFilter, x.dtype());
  const std::int64_t crs = g.c * g.r * g.s;
  const std::int64_t pq = g.p() * g.q();
  std::vector<float> col(static_cast<std::size_t>(crs * pq));
  std::vector<float> sum(static_cast<std::size_t>(g.k * crs), 0.0f);  // FP32 across the batch
  for (std::int64_t n = 0; n < g.n; ++n) {
    im2col(g, x.cpuData() + n * g.c * g.h * g.w, col.data());
    sgemm(false, true, g.k, crs, pq, 1.0f, dy.cpuData() + n * g.k * pq, col.data(), 1.0f, sum.data(), x.dtype());
  }
  std::copy(sum.begin(), sum.end(), dfilter.cpuData());
  roundAll(dfilter.cpuData(), dfilter.numel(), dfilter.dtype());
}

}  // namespace ampscope::trainer
