#include "trainer/backend/cpu/cpu_backend.h"
#include "trainer/backend/cpu/channel_walk.h"
#include "trainer/instrumentation/host_op_range.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <new>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/numerics/elementwise_math.h"
#include "trainer/numerics/low_precision.h"

namespace ampscope::trainer {

CpuBackend::CpuBackend() = default;

std::string CpuBackend::description() const {
  return fmt::format("CPU (OpenBLAS {} threads; FP16/BF16 storage emulated by rounding)", openblas_get_num_threads());
}

Tensor CpuBackend::allocate(const Shape& shape, DType dtype) {
  const auto count = static_cast<std::size_t>(elementCount(shape));
  std::shared_ptr<float[]> memory;
  try {
    memory = pool_.allocate(count, static_cast<std::size_t>(gpuStorageBytes(static_cast<std::int64_t>(count), dtype)));
  } catch (const std::bad_alloc& error) {
    // Every dtype is stored as float here (FP16 and BF16 are emulated by rounding).
    throw BackendError("CPU backend", fmt::format("out of host memory for a {} {} tensor of {} floats ({})",
                                                  shapeText(shape), dtypeName(dtype), count, error.what()));
  }
  std::shared_ptr<void> block(memory, memory.get());
  if (tracker_->observed()) {
    block = AllocationTracker::track(tracker_, std::move(block), gpuStorageBytes(static_cast<std::int64_t>(count), dtype));
  }
  return Tensor(shape, dtype, DeviceKind::kCpu, std::move(block));
}

void CpuBackend::upload(std::span<const float> values, Tensor& dst) {
  const ScopedHostOp host_op(HostOp::kUpload, dst.dtype());
  std::copy(values.begin(), values.end(), dst.cpuData());
  roundAll(dst.cpuData(), dst.numel(), dst.dtype());
}

std::vector<float> CpuBackend::download(const Tensor& src) {
  const ScopedHostOp host_op(HostOp::kDownload, src.dtype());
  return {src.cpuData(), src.cpuData() + src.numel()};
}

void CpuBackend::fill(Tensor& dst, float value) {
  const ScopedHostOp host_op(HostOp::kFill, dst.dtype());
  std::fill(dst.cpuData(), dst.cpuData() + dst.numel(), roundTo(dst.dtype(), value));
}

void CpuBackend::copy(const Tensor& src, Tensor& dst) {
  const ScopedHostOp host_op(HostOp::kCopy, src.dtype());
  std::copy(src.cpuData(), src.cpuData() + src.numel(), dst.cpuData());
  roundAll(dst.cpuData(), dst.numel(), dst.dtype());
}

void CpuBackend::scale(Tensor& x, float factor) {
  const ScopedHostOp host_op(HostOp::kScale, x.dtype());
  float* v = x.cpuData();
  for (std::int64_t i = 0; i < x.numel(); ++i) v[i] *= factor;
  roundAll(v, x.numel(), x.dtype());
}

void CpuBackend::addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) {
  const ScopedHostOp host_op(HostOp::kAddBias, y.dtype());
  float* out = y.cpuData();
  const float* b = bias.cpuData();
  // Channel by channel: a division per element to find its channel costs more than the addition.
  const std::int64_t outer = channels * inner == 0 ? 0 : y.numel() / (channels * inner);
  for (std::int64_t c = 0; c < channels; ++c) forChannel(outer, channels, inner, c, [&](std::int64_t i) { out[i] += b[c]; });
  roundAll(out, y.numel(), y.dtype());
}

void CpuBackend::biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) {
  const ScopedHostOp host_op(HostOp::kBiasGradient, dy.dtype());
  std::vector<double> sum(static_cast<std::size_t>(channels), 0.0);
  const float* grad = dy.cpuData();
  const std::int64_t outer = channels * inner == 0 ? 0 : dy.numel() / (channels * inner);
  for (std::int64_t c = 0; c < channels; ++c) {
    double& total = sum[static_cast<std::size_t>(c)];
    forChannel(outer, channels, inner, c, [&](std::int64_t i) { total += grad[i]; });
  }
  for (std::int64_t c = 0; c < channels; ++c) {
    dbias.cpuData()[c] = roundTo(dbias.dtype(), static_cast<float>(sum[static_cast<std::size_t>(c)]));
  }
}

void CpuBackend::activationForward(Activation kind, const Tensor& x, Tensor& y) {
  const ScopedHostOp host_op(HostOp::kActivationForward, x.dtype());
  const float* in = x.cpuData();
  float* out = y.cpuData();
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    out[i] = kind == Activation::kRelu ? math::reluForward(in[i]) : math::geluForward(in[i]);
  }
  roundAll(out, y.numel(), y.dtype());
}

void CpuBackend::activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) {
  const ScopedHostOp host_op(HostOp::kActivationBackward, dy.dtype());
  const float* in = x.cpuData();
  const float* grad = dy.cpuData();
  float* out = dx.cpuData();
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    out[i] = kind == Activation::kRelu ? math::reluBackward(in[i], grad[i]) : math::geluBackward(in[i], grad[i]);
  }
  roundAll(out, dx.numel(), dx.dtype());
}

Backend::LossResult CpuBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float loss_scale,
                                                    Tensor& dlogits) {
  const ScopedHostOp host_op(HostOp::kSoftmaxCrossEntropy, logits.dtype());
  const std::int64_t batch = logits.dim(0);
  const std::int64_t classes = logits.dim(1);
  const float grad_factor = loss_scale / static_cast<float>(batch);
  LossResult result;
  std::vector<float> row_grad(static_cast<std::size_t>(classes));
  double loss_sum = 0;
  for (std::int64_t r = 0; r < batch; ++r) {
    const float* row = logits.cpuData() + r * classes;
    const auto label = static_cast<std::int64_t>(labels.cpuData()[r]);
    loss_sum += math::softmaxCrossEntropyRow(row, classes, label, grad_factor, row_grad.data());
    for (std::int64_t i = 0; i < classes; ++i) {
      dlogits.cpuData()[r * classes + i] = roundTo(dlogits.dtype(), row_grad[static_cast<std::size_t>(i)]);
    }
    result.correct += math::argmaxRow(row, classes) == label ? 1 : 0;
  }
  result.loss = loss_sum / static_cast<double>(batch);
  return result;
}

std::int64_t CpuBackend::countCorrect(const Tensor& logits, const Tensor& labels) {
  const ScopedHostOp host_op(HostOp::kCountCorrect, logits.dtype());
  const std::int64_t classes = logits.dim(1);
  std::int64_t correct = 0;
  for (std::int64_t r = 0; r < logits.dim(0); ++r) {
    correct += math::argmaxRow(logits.cpuData() + r * classes, classes) == static_cast<std::int64_t>(labels.cpuData()[r]);
  }
  return correct;
}

bool CpuBackend::unscaleAndCheck(std::span<Tensor* const> gradients, float inv_scale) {
  const ScopedHostOp host_op(HostOp::kUnscaleAndCheck, (gradients.empty() ? DType::kFp32 : gradients.front()->dtype()));
  bool found_non_finite = false;
  for (Tensor* gradient : gradients) {
    float* g = gradient->cpuData();
    for (std::int64_t i = 0; i < gradient->numel(); ++i) {
      found_non_finite |= !math::isFinite(g[i]);
      g[i] *= inv_scale;
    }
    roundAll(g, gradient->numel(), gradient->dtype());
  }
  return found_non_finite;
}

double CpuBackend::squaredNorm(const Tensor& x) {
  const ScopedHostOp host_op(HostOp::kSquaredNorm, x.dtype());
  double sum = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) sum += static_cast<double>(x.cpuData()[i]) * x.cpuData()[i];
  return sum;
}

GradientHistogram CpuBackend::gradientHistogram(const Tensor& gradient, float scale) {
  const ScopedHostOp host_op(HostOp::kGradientHistogram, gradient.dtype());
  GradientHistogram h;
  for (std::int64_t i = 0; i < gradient.numel(); ++i) {
    const float g = gradient.cpuData()[i];
    ++h.count;
    if (!math::isFinite(g)) {
      ++h.non_finite;
    } else if (g == 0.0f) {
      ++h.zeros;
    } else {
      const int bin = std::clamp(math::binaryExponent(g) - kHistogramMinExponent, 0, kHistogramBins - 1);
      ++h.bins[static_cast<std::size_t>(bin)];
      h.underflow_at_scale += math::underflowsHalf(g * scale) ? 1 : 0;
    }
  }
  return h;
}

void CpuBackend::sgdStep(const SgdSettings& s, Tensor& param, const Tensor& grad, Tensor& momentum) {
  const ScopedHostOp host_op(HostOp::kSgdStep, param.dtype());
  float* p = param.cpuData();
  float* buf = momentum.cpuData();
  // Each element's update reads only its own values, so rounding after the loop is the same.
  for (std::int64_t i = 0; i < param.numel(); ++i) {
    p[i] = math::sgdUpdate(p[i], grad.cpuData()[i], buf[i], s.lr, s.momentum, s.weight_decay);
  }
  roundAll(p, param.numel(), param.dtype());
  roundAll(buf, momentum.numel(), momentum.dtype());
}

void CpuBackend::adamWStep(const AdamWSettings& s, std::int64_t step, Tensor& param, const Tensor& grad,
                           Tensor& first_moment, Tensor& second_moment) {
  const ScopedHostOp host_op(HostOp::kAdamWStep, param.dtype());
  const auto correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), static_cast<double>(step)));
  const auto correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta2), static_cast<double>(step)));
  float* p = param.cpuData();
  float* m = first_moment.cpuData();
  float* v = second_moment.cpuData();
  for (std::int64_t i = 0; i < param.numel(); ++i) {
    p[i] = math::adamWUpdate(p[i], grad.cpuData()[i], m[i], v[i], s.lr, s.beta1, s.beta2, s.eps, s.weight_decay,
                             correction1, correction2);
  }
  roundAll(p, param.numel(), param.dtype());
  roundAll(m, first_moment.numel(), first_moment.dtype());
  roundAll(v, second_moment.numel(), second_moment.dtype());
}

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace ampscope::trainer
