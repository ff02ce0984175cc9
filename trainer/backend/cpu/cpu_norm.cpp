// Batch norm, layer norm and pooling. Statistics and sums are taken in double here (the CPU is the
// reference); outputs are rounded to their tensors' dtypes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "trainer/backend/cpu/cpu_backend.h"
#include "trainer/instrumentation/range_marker.h"
#include "trainer/numerics/elementwise_math.h"
#include "trainer/numerics/low_precision.h"

namespace ampscope::trainer {

void CpuBackend::batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                                  const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum,
                                  float eps, bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  const ScopedHostOp host_op(HostOp::kBatchNormForward, x.dtype());
  const std::int64_t outer = x.numel() / (channels * inner);
  const auto count = static_cast<double>(outer * inner);
  const float* in = x.cpuData();
  float* out = y.cpuData();
  for (std::int64_t c = 0; c < channels; ++c) {
    double mean = running_mean.cpuData()[c];
    double var = running_var.cpuData()[c];
    if (training) {
      double sum = 0;
      forChannel(outer, channels, inner, c, [&](std::int64_t i) { sum += in[i]; });
      mean = sum / count;
      double squares = 0;
      forChannel(outer, channels, inner, c, [&](std::int64_t i) { squares += (in[i] - mean) * (in[i] - mean); });
      var = squares / count;
      // Running variance is unbiased, as PyTorch keeps it.
      const double unbiased = count > 1 ? squares / (count - 1) : var;
      running_mean.cpuData()[c] = static_cast<float>((1.0 - momentum) * running_mean.cpuData()[c] + momentum * mean);
      running_var.cpuData()[c] = static_cast<float>((1.0 - momentum) * running_var.cpuData()[c] + momentum * unbiased);
    }
    const auto m = static_cast<float>(mean);
    const auto inv_std = static_cast<float>(1.0 / std::sqrt(var + eps));
    saved_mean.cpuData()[c] = m;
    saved_inv_std.cpuData()[c] = inv_std;
    const float g = gamma.cpuData()[c];
    const float b = beta.cpuData()[c];
    forChannel(outer, channels, inner, c, [&](std::int64_t i) { out[i] = (in[i] - m) * inv_std * g + b; });
  }
  roundAll(out, y.numel(), y.dtype());
}

void CpuBackend::batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                                   const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std,
                                   Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  const ScopedHostOp host_op(HostOp::kBatchNormBackward, dy.dtype());
  const std::int64_t outer = x.numel() / (channels * inner);
  const auto count = static_cast<float>(outer * inner);
  const float* in = x.cpuData();
  const float* grad = dy.cpuData();
  for (std::int64_t c = 0; c < channels; ++c) {
    const float m = saved_mean.cpuData()[c];
    const float inv_std = saved_inv_std.cpuData()[c];
    const float g = gamma.cpuData()[c];
    double sum_dy = 0;
    double sum_dy_xhat = 0;
    forChannel(outer, channels, inner, c, [&](std::int64_t i) {
      sum_dy += grad[i];
      sum_dy_xhat += grad[i] * (in[i] - m) * inv_std;
    });
    dgamma.cpuData()[c] = roundTo(dgamma.dtype(), static_cast<float>(sum_dy_xhat));
    dbeta.cpuData()[c] = roundTo(dbeta.dtype(), static_cast<float>(sum_dy));
    const auto sum_dy_gamma = static_cast<float>(sum_dy * g);
    const auto sum_dy_gamma_xhat = static_cast<float>(sum_dy_xhat * g);
    forChannel(outer, channels, inner, c, [&](std::int64_t i) {
      const float xhat = (in[i] - m) * inv_std;
      dx.cpuData()[i] = math::normBackwardElement(grad[i] * g, xhat, inv_std, count, sum_dy_gamma, sum_dy_gamma_xhat);
    });
  }
  roundAll(dx.cpuData(), dx.numel(), dx.dtype());
}

void CpuBackend::layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta,
                                  float eps, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  const ScopedHostOp host_op(HostOp::kLayerNormForward, x.dtype());
  const std::int64_t rows = x.numel() / features;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = x.cpuData() + r * features;
    float* out = y.cpuData() + r * features;
    double sum = 0;
    for (std::int64_t i = 0; i < features; ++i) sum += in[i];
    const double mean = sum / static_cast<double>(features);
    double squares = 0;
    for (std::int64_t i = 0; i < features; ++i) squares += (in[i] - mean) * (in[i] - mean);
    const auto m = static_cast<float>(mean);
    const auto inv_std = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(features) + eps));
    saved_mean.cpuData()[r] = m;
    saved_inv_std.cpuData()[r] = inv_std;
    for (std::int64_t i = 0; i < features; ++i) out[i] = (in[i] - m) * inv_std * gamma.cpuData()[i] + beta.cpuData()[i];
  }
  roundAll(y.cpuData(), y.numel(), y.dtype());
}

void CpuBackend::layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                                   const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                                   Tensor& dbeta) {
  const ScopedHostOp host_op(HostOp::kLayerNormBackward, dy.dtype());
  const std::int64_t rows = x.numel() / features;
  std::vector<double> sum_dgamma(static_cast<std::size_t>(features), 0.0);
  std::vector<double> sum_dbeta(static_cast<std::size_t>(features), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = x.cpuData() + r * features;
    const float* grad = dy.cpuData() + r * features;
    const float m = saved_mean.cpuData()[r];
    const float inv_std = saved_inv_std.cpuData()[r];
    double sum_dy_gamma = 0;
    double sum_dy_gamma_xhat = 0;
    for (std::int64_t i = 0; i < features; ++i) {
      const float xhat = (in[i] - m) * inv_std;
      const float dy_gamma = grad[i] * gamma.cpuData()[i];
      sum_dy_gamma += dy_gamma;
      sum_dy_gamma_xhat += dy_gamma * xhat;
      sum_dgamma[static_cast<std::size_t>(i)] += grad[i] * xhat;
      sum_dbeta[static_cast<std::size_t>(i)] += grad[i];
    }
    for (std::int64_t i = 0; i < features; ++i) {
      const float xhat = (in[i] - m) * inv_std;
      dx.cpuData()[r * features + i] =
          math::normBackwardElement(grad[i] * gamma.cpuData()[i], xhat, inv_std, static_cast<float>(features),
                                    static_cast<float>(sum_dy_gamma), static_cast<float>(sum_dy_gamma_xhat));
    }
  }
  roundAll(dx.cpuData(), dx.numel(), dx.dtype());
  for (std::int64_t i = 0; i < features; ++i) {
    dgamma.cpuData()[i] = roundTo(dgamma.dtype(), static_cast<float>(sum_dgamma[static_cast<std::size_t>(i)]));
    dbeta.cpuData()[i] = roundTo(dbeta.dtype(), static_cast<float>(sum_dbeta[static_cast<std::size_t>(i)]));
  }
}

namespace {

math::ActivationIndex poolIndex(const PoolGeometry& g, std::int64_t h, std::int64_t w) {
  return {.c = g.c, .h = h, .w = w, .channels_last = g.layout == MemoryLayout::kChannelsLast};
}

}  // namespace

void CpuBackend::poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) {
  const ScopedHostOp host_op(HostOp::kPoolForward, x.dtype());
  const std::int64_t p = g.p();
  const std::int64_t q = g.q();
  const math::ActivationIndex in_index = poolIndex(g, g.h, g.w);
  const math::ActivationIndex out_index = poolIndex(g, p, q);
  for (std::int64_t image = 0; image < g.n; ++image) {
    for (std::int64_t channel = 0; channel < g.c; ++channel) {
      const float* in = x.cpuData() + in_index.planeBase(image, channel);
      for (std::int64_t oy = 0; oy < p; ++oy) {
        for (std::int64_t ox = 0; ox < q; ++ox) {
          y.cpuData()[out_index.at(image, channel, oy, ox)] = math::poolWindow(
              kind == PoolKind::kMax, in, in_index.pitch(), oy * g.stride, ox * g.stride, g.window);
        }
      }
    }
  }
  roundAll(y.cpuData(), y.numel(), y.dtype());
}

void CpuBackend::poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) {
  const ScopedHostOp host_op(HostOp::kPoolBackward, dy.dtype());
  const std::int64_t p = g.p();
  const std::int64_t q = g.q();
  const math::ActivationIndex in_index = poolIndex(g, g.h, g.w);
  const math::ActivationIndex out_index = poolIndex(g, p, q);
  const math::PlanePitch pitch = in_index.pitch();
  std::vector<float> sum(static_cast<std::size_t>(dx.numel()), 0.0f);
  const auto window_size = static_cast<float>(g.window * g.window);
  for (std::int64_t image = 0; image < g.n; ++image) {
    for (std::int64_t channel = 0; channel < g.c; ++channel) {
      const std::int64_t base = in_index.planeBase(image, channel);
      const float* in = x.cpuData() + base;
      float* out = sum.data() + base;
      for (std::int64_t oy = 0; oy < p; ++oy) {
        for (std::int64_t ox = 0; ox < q; ++ox) {
          const float d = dy.cpuData()[out_index.at(image, channel, oy, ox)];
          if (kind == PoolKind::kMax) {
            out[math::poolArgmax(in, pitch, oy * g.stride, ox * g.stride, g.window)] += d;
            continue;
          }
          for (std::int64_t i = 0; i < g.window; ++i) {
            for (std::int64_t j = 0; j < g.window; ++j) {
              out[(oy * g.stride + i) * pitch.row + (ox * g.stride + j) * pitch.column] += d / window_size;
            }
          }
        }
      }
    }
  }
  std::copy(sum.begin(), sum.end(), dx.cpuData());
  roundAll(dx.cpuData(), dx.numel(), dx.dtype());
}

}  // namespace ampscope::trainer
