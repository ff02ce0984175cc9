#include "trainer/backend/cpu/cpu_backend.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/instrumentation/range_marker.h"
#include "trainer/numerics/elementwise_math.h"
#include "trainer/numerics/low_precision.h"

namespace ampscope::trainer {

namespace {

// dst = src rounded to dst's dtype.
void convertInto(const Tensor& src, Tensor& dst) {
  std::copy(src.cpuData(), src.cpuData() + src.numel(), dst.cpuData());
  roundAll(dst.cpuData(), dst.numel(), dst.dtype());
}

// x *= factor, rounded to x's dtype.
void scaleInPlace(Tensor& x, float factor) {
  float* v = x.cpuData();
  for (std::int64_t i = 0; i < x.numel(); ++i) v[i] *= factor;
  roundAll(v, x.numel(), x.dtype());
}

}  // namespace

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
  convertInto(src, dst);
}

void CpuBackend::scale(Tensor& x, float factor) {
  const ScopedHostOp host_op(HostOp::kScale, x.dtype());
  scaleInPlace(x, factor);
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

StepStateMemory CpuBackend::allocateStepState(const StepStateLayout& layout, const ScalerState& initial) {
  if (!stepStateFits(layout, initial)) {
    throw BackendError("CPU backend", fmt::format("a step log of {} slots of {} rows for a scaler at slot {} of {} slots",
                                                  layout.slots, layout.max_rows, initial.slot, initial.slots));
  }
  StepStateMemory state;
  state.layout = layout;
  state.device = DeviceKind::kCpu;
  state.memory = std::shared_ptr<void>(::operator new(layout.bytes(), std::align_val_t{StepStateLayout::kAlignment}),
                                       [](void* p) { ::operator delete(p, std::align_val_t{StepStateLayout::kAlignment}); });
  std::memset(state.memory.get(), 0, layout.bytes());
  const StepStateView view = state.view();
  *view.scaler = initial;
  for (std::int32_t i = 0; i < layout.slots; ++i) view.entries[i] = StepLogEntry{};
  // The step points: the host's clock in ns (ops run as they are called), -1 until marked.
  state.timing = std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(layout.slots) * kStepPoints, -1);
  return state;
}

void CpuBackend::markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) {
  auto& points = *static_cast<std::vector<std::int64_t>*>(state.timing.get());
  points.at(static_cast<std::size_t>(slot) * kStepPoints + static_cast<std::size_t>(point)) =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StepLogRead CpuBackend::readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) {
  const StepStateView view = state.view();
  StepLogRead read;
  read.scaler = *view.scaler;
  for (std::int32_t i = 0; i < count; ++i) {
    const std::int32_t slot = (first + i) % state.layout.slots;
    const StepLogEntry& entry = view.entries[slot];
    read.entries.push_back(entry);
    const float* losses = view.row_losses + static_cast<std::int64_t>(slot) * view.max_rows;
    read.row_losses.emplace_back(losses, losses + entry.rows);
    // Read once: the slot's points are forgotten for its next step, which may not mark them all.
    auto& points = *static_cast<std::vector<std::int64_t>*>(state.timing.get());
    std::array<std::int64_t, kStepPoints> point_ns{};
    const auto first_point = points.begin() + static_cast<std::ptrdiff_t>(slot) * kStepPoints;
    std::copy_n(first_point, kStepPoints, point_ns.begin());
    std::fill_n(first_point, kStepPoints, std::int64_t{-1});
    read.phase_ns.push_back(phaseDurations(point_ns));
    read.step_ns.push_back(stepDuration(point_ns));
  }
  return read;
}

void CpuBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                                     Tensor& dlogits) {
  const ScopedHostOp host_op(HostOp::kSoftmaxCrossEntropy, logits.dtype());
  const StepStateView view = state.view();
  const std::int64_t batch = logits.dim(0);
  const std::int64_t classes = logits.dim(1);
  const float grad_factor = view.scaler->scale / static_cast<float>(batch);
  StepLogEntry& entry = view.current();
  float* row_loss = view.currentLosses();
  std::vector<float> row_grad(static_cast<std::size_t>(classes));
  entry.correct = 0;
  entry.rows = static_cast<std::int32_t>(batch);
  for (std::int64_t r = 0; r < batch; ++r) {
    const float* row = logits.cpuData() + r * classes;
    const auto label = static_cast<std::int64_t>(labels.cpuData()[r]);
    row_loss[r] = math::softmaxCrossEntropyRow(row, classes, label, grad_factor, row_grad.data());
    for (std::int64_t i = 0; i < classes; ++i) {
      dlogits.cpuData()[r * classes + i] = roundTo(dlogits.dtype(), row_grad[static_cast<std::size_t>(i)]);
    }
    entry.correct += math::argmaxRow(row, classes) == label ? 1 : 0;
  }
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

void CpuBackend::copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) {
  if (sources.empty()) return;
  const ScopedHostOp host_op(HostOp::kCopyAll, destinations.front()->dtype());
  for (std::size_t i = 0; i < sources.size(); ++i) convertInto(*sources[i], *destinations[i]);
}

void CpuBackend::unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) {
  const ScopedHostOp host_op(HostOp::kUnscaleGradients, gradients.empty() ? DType::kFp32 : gradients.front()->dtype());
  ScalerState& scaler = *state.view().scaler;
  const float inv_scale = math::inverseScale(scaler);
  bool found_non_finite = false;
  for (Tensor* gradient : gradients) {
    float* g = gradient->cpuData();
    for (std::int64_t i = 0; i < gradient->numel(); ++i) {
      found_non_finite |= !math::isFinite(g[i]);
      g[i] *= inv_scale;
    }
    roundAll(g, gradient->numel(), gradient->dtype());
  }
  if (found_non_finite) scaler.found_inf = 1;
}

void CpuBackend::clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) {
  const ScopedHostOp host_op(HostOp::kClipGradients, gradients.empty() ? DType::kFp32 : gradients.front()->dtype());
  const StepStateView view = state.view();
  view.current().gradient_norm_squared = 0.0;
  if (math::skipsUpdate(*view.scaler)) return;
  double squares = 0;
  for (const Tensor* gradient : gradients) {
    double sum = 0;
    for (std::int64_t i = 0; i < gradient->numel(); ++i) {
      sum += static_cast<double>(gradient->cpuData()[i]) * gradient->cpuData()[i];
    }
    squares += sum;
  }
  view.current().gradient_norm_squared = squares;
  view.scaler->clip_factor = math::clipFactor(squares, max_norm);
  if (view.scaler->clip_factor == 1.0f) return;
  for (Tensor* gradient : gradients) scaleInPlace(*gradient, view.scaler->clip_factor);
}

std::vector<GradientHistogram> CpuBackend::gradientHistograms(std::span<const Tensor* const> gradients,
                                                              const StepStateMemory& state) {
  const ScopedHostOp host_op(HostOp::kGradientHistograms, gradients.empty() ? DType::kFp32 : gradients.front()->dtype());
  const float scale = state.view().scaler->scale;
  std::vector<GradientHistogram> out;
  for (const Tensor* gradient : gradients) {
    GradientHistogram& h = out.emplace_back();
    for (std::int64_t i = 0; i < gradient->numel(); ++i) {
      const float g = gradient->cpuData()[i];
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
  }
  return out;
}

void CpuBackend::sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
                         const StepStateMemory& state) {
  if (parameters.empty()) return;
  const ScopedHostOp host_op(HostOp::kSgdStep, parameters.front().param->dtype());
  const ScalerState& scaler = *state.view().scaler;
  if (math::skipsUpdate(scaler)) return;
  const float lr = scaler.learning_rate;
  for (const ParameterTensors& t : parameters) {
    float* p = t.param->cpuData();
    float* buf = t.state1->cpuData();
    const float* grad = t.grad->cpuData();
    // Each element's update reads only its own values, so rounding after the loop is the same.
    for (std::int64_t i = 0; i < t.param->numel(); ++i) {
      p[i] = math::sgdUpdate(p[i], grad[i], buf[i], lr, s.momentum, s.weight_decay);
    }
    roundAll(p, t.param->numel(), t.param->dtype());
    roundAll(buf, t.state1->numel(), t.state1->dtype());
    if (t.low_precision_copy != nullptr) convertInto(*t.param, *t.low_precision_copy);
  }
}

void CpuBackend::adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                           const StepStateMemory& state) {
  if (parameters.empty()) return;
  const ScopedHostOp host_op(HostOp::kAdamWStep, parameters.front().param->dtype());
  const ScalerState& scaler = *state.view().scaler;
  if (math::skipsUpdate(scaler)) return;
  const float correction1 = math::biasCorrection(s.beta1, scaler.applied_steps + 1);
  const float correction2 = math::biasCorrection(s.beta2, scaler.applied_steps + 1);
  for (const ParameterTensors& t : parameters) {
    float* p = t.param->cpuData();
    float* m = t.state1->cpuData();
    float* v = t.state2->cpuData();
    const float* grad = t.grad->cpuData();
    for (std::int64_t i = 0; i < t.param->numel(); ++i) {
      p[i] = math::adamWUpdate(p[i], grad[i], m[i], v[i], scaler.learning_rate, s.beta1, s.beta2, s.eps, s.weight_decay, correction1,
                               correction2);
    }
    roundAll(p, t.param->numel(), t.param->dtype());
    roundAll(m, t.state1->numel(), t.state1->dtype());
    roundAll(v, t.state2->numel(), t.state2->dtype());
    if (t.low_precision_copy != nullptr) convertInto(*t.param, *t.low_precision_copy);
  }
}

void CpuBackend::finishStep(StepStateMemory& state) {
  const ScopedHostOp host_op(HostOp::kFinishStep, DType::kFp32);
  const StepStateView view = state.view();
  math::finishStep(*view.scaler, view.current());
}

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace ampscope::trainer
