// Convolutions as GEMMs over im2col buffers, per image: the unfolded input col [c*r*s, p*q] with
// its rows in the filter's own order (KCRS: channel, row, column; KRSC: row, column, channel), so
// that the filter [k, c*r*s] multiplies it as it lies. Channels first the output [k, p*q] is
// filter x col; channels last it is [p*q, k], col^T x filter^T. Sums run in FP32 and each output
// is rounded once at the end, as cuDNN's Tensor Core kernels accumulate in FP32 and round in their
// epilogue.
#include <algorithm>
#include <vector>

#include "trainer/backend/cpu/cpu_backend.h"
#include "trainer/instrumentation/range_marker.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer {

namespace {

bool channelsLast(const ConvGeometry& g) { return g.layout == MemoryLayout::kChannelsLast; }

// The row of col, and of the filter's inner dimension, that holds (channel, i, j).
std::int64_t colRow(const ConvGeometry& g, std::int64_t channel, std::int64_t i, std::int64_t j) {
  return channelsLast(g) ? (i * g.s + j) * g.c + channel : (channel * g.r + i) * g.s + j;
}

// Visits col[row][y*q + x] with the input pixel it unfolds, image[channel][y*stride + i - pad]
// [x*stride + j - pad], or -1 where that lies in the padding.
template <typename Visit>
void forEachUnfolded(const ConvGeometry& g, Visit visit) {
  const std::int64_t p = g.p();
  const std::int64_t q = g.q();
  const math::ActivationIndex image{.c = g.c, .h = g.h, .w = g.w, .channels_last = channelsLast(g)};
  for (std::int64_t channel = 0; channel < g.c; ++channel) {
    for (std::int64_t i = 0; i < g.r; ++i) {
      for (std::int64_t j = 0; j < g.s; ++j) {
        const std::int64_t row = colRow(g, channel, i, j) * p * q;
        for (std::int64_t y = 0; y < p; ++y) {
          const std::int64_t in_y = y * g.stride + i - g.pad;
          for (std::int64_t x = 0; x < q; ++x) {
            const std::int64_t in_x = x * g.stride + j - g.pad;
            const bool inside = in_y >= 0 && in_y < g.h && in_x >= 0 && in_x < g.w;
            visit(row + y * q + x, inside ? image.at(0, channel, in_y, in_x) : -1);
          }
        }
      }
    }
  }
}

void im2col(const ConvGeometry& g, const float* image, float* col) {
  forEachUnfolded(g, [&](std::int64_t at, std::int64_t pixel) { col[at] = pixel >= 0 ? image[pixel] : 0.0f; });
}

// The adjoint of im2col: adds each column entry back onto the image pixel it came from.
void col2imAdd(const ConvGeometry& g, const float* col, float* image) {
  forEachUnfolded(g, [&](std::int64_t at, std::int64_t pixel) {
    if (pixel >= 0) image[pixel] += col[at];
  });
}

}  // namespace

void CpuBackend::convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) {
  const ScopedHostOp host_op(HostOp::kConvForward, x.dtype());
  const std::int64_t crs = g.c * g.r * g.s;
  const std::int64_t pq = g.p() * g.q();
  std::vector<float> col(static_cast<std::size_t>(crs * pq));
  for (std::int64_t n = 0; n < g.n; ++n) {
    im2col(g, x.cpuData() + n * g.c * g.h * g.w, col.data());
    float* out = y.cpuData() + n * g.k * pq;
    if (channelsLast(g)) {
      sgemm(true, true, pq, g.k, crs, 1.0f, col.data(), filter.cpuData(), 0.0f, out, x.dtype());
    } else {
      sgemm(false, false, g.k, pq, crs, 1.0f, filter.cpuData(), col.data(), 0.0f, out, x.dtype());
    }
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
    // col = filter^T x dy, dy being [k, p*q] channels first and [p*q, k] channels last.
    sgemm(true, channelsLast(g), crs, pq, g.k, 1.0f, filter.cpuData(), dy.cpuData() + n * g.k * pq, 0.0f,
          col.data(), dy.dtype());
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
    // dfilter += dy x col^T, dy being [k, p*q] channels first and [p*q, k] channels last.
    sgemm(channelsLast(g), true, g.k, crs, pq, 1.0f, dy.cpuData() + n * g.k * pq, col.data(), 1.0f, sum.data(),
          x.dtype());
  }
  std::copy(sum.begin(), sum.end(), dfilter.cpuData());
  roundAll(dfilter.cpuData(), dfilter.numel(), dfilter.dtype());
}

}  // namespace ampscope::trainer
