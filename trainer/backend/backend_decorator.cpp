#include "trainer/backend/backend_decorator.h"

#include <array>
#include <charconv>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/numerics/multi_tensor.h"

namespace ampscope::trainer {

namespace {

using enum OpDemand;
constexpr std::array<BackendOpInfo, static_cast<std::size_t>(BackendOp::kCount)> kOps = {{
    {"allocate", kNone},
    {"allocateStepState", kNone},
    {"upload", kLaunch},
    {"download", kHostRead},
    {"fill", kLaunch},
    {"copy", kLaunch},
    {"scale", kLaunch},
    {"synchronize", kHostRead},  // a wait for the device, as a read is
    {"gemm", kLaunch},
    {"convForward", kLaunch},
    {"convBackwardData", kLaunch},
    {"convBackwardFilter", kLaunch},
    {"addBias", kLaunch},
    {"biasGradient", kLaunch},
    {"activationForward", kLaunch},
    {"activationBackward", kLaunch},
    {"batchNormForward", kLaunch},
    {"batchNormBackward", kLaunch},
    {"layerNormForward", kLaunch},
    {"layerNormBackward", kLaunch},
    {"poolForward", kLaunch},
    {"poolBackward", kLaunch},
    {"softmaxCrossEntropy", kLaunch},
    {"countCorrect", kHostRead},
    {"readStepLog", kHostRead},
    {"copyAll", kMultiTensor},
    {"unscaleGradients", kMultiTensor},
    {"clipGradients", kMultiTensor},
    {"gradientHistograms", kHostRead},
    {"sgdStep", kMultiTensor},
    {"adamWStep", kMultiTensor},
    {"finishStep", kLaunch},
    {"markStepPoint", kNone},  // an event recorded, no kernel
    {"setLearningRate", kLaunch},  // a small copy to the device
}};

}  // namespace

const BackendOpInfo& backendOpInfo(BackendOp op) { return kOps[static_cast<std::size_t>(op)]; }

std::optional<BackendOp> parseBackendOp(std::string_view name) {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name) return static_cast<BackendOp>(i);
  }
  return std::nullopt;
}

std::string_view backendOpNames() {
  static const std::string names = [] {
    std::string out;
    for (const BackendOpInfo& op : kOps) out += (out.empty() ? "" : ", ") + std::string(op.name);
    return out;
  }();
  return names;
}

std::int64_t multiTensorOpLaunches(std::span<const Tensor* const> tensors) {
  std::vector<std::int64_t> counts;
  for (const Tensor* t : tensors) counts.push_back(t->numel());
  return multiTensorLaunches(counts);
}

std::int64_t multiTensorOpLaunches(std::span<const ParameterTensors> parameters) {
  std::vector<std::int64_t> counts;
  for (const ParameterTensors& p : parameters) counts.push_back(p.param->numel());
  return multiTensorLaunches(counts);
}

std::int64_t clipGradientsLaunches(std::span<Tensor* const> gradients, float max_norm) {
  const std::int64_t pass = multiTensorOpLaunches(std::span<const Tensor* const>(gradients.data(), gradients.size()));
  return pass + 1 + (max_norm > 0.0f ? pass : 0);
}

void BackendDecorator::arriveSingle(BackendOp op) {
  arrive(op, backendOpInfo(op).demand == OpDemand::kLaunch ? 1 : 0);
}

Tensor BackendDecorator::allocate(const Shape& shape, DType dtype) {
  arriveSingle(BackendOp::kAllocate);
  return inner_.allocate(shape, dtype);
}

void BackendDecorator::upload(std::span<const float> values, Tensor& dst) {
  arriveSingle(BackendOp::kUpload);
  std::vector<float> values_copy(values.begin(), values.end());
  queue([this, values_copy = std::move(values_copy), dst]() mutable { inner_.upload(values_copy, dst); });
}

std::vector<float> BackendDecorator::download(const Tensor& src) {
  arriveSingle(BackendOp::kDownload);
  refuseWhileRecording(BackendOp::kDownload);
  return inner_.download(src);
}

void BackendDecorator::fill(Tensor& dst, float value) {
  arriveSingle(BackendOp::kFill);
  queue([this, dst, value]() mutable { inner_.fill(dst, value); });
}

void BackendDecorator::copy(const Tensor& src, Tensor& dst) {
  arriveSingle(BackendOp::kCopy);
  queue([this, src, dst]() mutable { inner_.copy(src, dst); });
}

void BackendDecorator::scale(Tensor& x, float factor) {
  arriveSingle(BackendOp::kScale);
  queue([this, x, factor]() mutable { inner_.scale(x, factor); });
}

void BackendDecorator::synchronize() {
  arriveSingle(BackendOp::kSynchronize);
  refuseWhileRecording(BackendOp::kSynchronize);
  inner_.synchronize();
}

void BackendDecorator::gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) {
  arriveSingle(BackendOp::kGemm);
  queue([this, call, a, b, c]() mutable { inner_.gemm(call, a, b, c); });
}

void BackendDecorator::convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) {
  arriveSingle(BackendOp::kConvForward);
  queue([this, g, x, filter, y]() mutable { inner_.convForward(g, x, filter, y); });
}

void BackendDecorator::convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) {
  arriveSingle(BackendOp::kConvBackwardData);
  queue([this, g, dy, filter, dx]() mutable { inner_.convBackwardData(g, dy, filter, dx); });
}

void BackendDecorator::convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) {
  arriveSingle(BackendOp::kConvBackwardFilter);
  queue([this, g, x, dy, dfilter]() mutable { inner_.convBackwardFilter(g, x, dy, dfilter); });
}

void BackendDecorator::addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) {
  arriveSingle(BackendOp::kAddBias);
  queue([this, y, bias, channels, inner]() mutable { inner_.addBias(y, bias, channels, inner); });
}

void BackendDecorator::biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) {
  arriveSingle(BackendOp::kBiasGradient);
  queue([this, dy, dbias, channels, inner]() mutable { inner_.biasGradient(dy, dbias, channels, inner); });
}

void BackendDecorator::activationForward(Activation kind, const Tensor& x, Tensor& y) {
  arriveSingle(BackendOp::kActivationForward);
  queue([this, kind, x, y]() mutable { inner_.activationForward(kind, x, y); });
}

void BackendDecorator::activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) {
  arriveSingle(BackendOp::kActivationBackward);
  queue([this, kind, x, dy, dx]() mutable { inner_.activationBackward(kind, x, dy, dx); });
}

void BackendDecorator::batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                        const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum, float eps,
                        bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  arriveSingle(BackendOp::kBatchNormForward);
  queue([this, x, channels, inner, gamma, beta, running_mean, running_var, momentum, eps, training, y, saved_mean, saved_inv_std]() mutable { inner_.batchNormForward(x, channels, inner, gamma, beta, running_mean, running_var, momentum, eps, training, y, saved_mean, saved_inv_std); });
}

void BackendDecorator::batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                         const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) {
  arriveSingle(BackendOp::kBatchNormBackward);
  queue([this, x, dy, channels, inner, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta]() mutable { inner_.batchNormBackward(x, dy, channels, inner, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta); });
}

void BackendDecorator::layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta, float eps,
                        Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) {
  arriveSingle(BackendOp::kLayerNormForward);
  queue([this, x, features, gamma, beta, eps, y, saved_mean, saved_inv_std]() mutable { inner_.layerNormForward(x, features, gamma, beta, eps, y, saved_mean, saved_inv_std); });
}

void BackendDecorator::layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                         const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                         Tensor& dbeta) {
  arriveSingle(BackendOp::kLayerNormBackward);
  queue([this, x, dy, features, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta]() mutable { inner_.layerNormBackward(x, dy, features, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta); });
}

void BackendDecorator::poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) {
  arriveSingle(BackendOp::kPoolForward);
  queue([this, kind, g, x, y]() mutable { inner_.poolForward(kind, g, x, y); });
}

void BackendDecorator::poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) {
  arriveSingle(BackendOp::kPoolBackward);
  queue([this, kind, g, x, dy, dx]() mutable { inner_.poolBackward(kind, g, x, dy, dx); });
}

StepStateMemory BackendDecorator::allocateStepState(const StepStateLayout& layout, const ScalerState& initial) {
  arriveSingle(BackendOp::kAllocateStepState);
  return inner_.allocateStepState(layout, initial);
}

StepLogRead BackendDecorator::readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) {
  arriveSingle(BackendOp::kReadStepLog);
  refuseWhileRecording(BackendOp::kReadStepLog);
  return inner_.readStepLog(state, first, count);
}

void BackendDecorator::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                           Tensor& dlogits) {
  arriveSingle(BackendOp::kSoftmaxCrossEntropy);
  queue([this, logits, labels, state, dlogits]() mutable { inner_.softmaxCrossEntropy(logits, labels, state, dlogits); });
}

std::int64_t BackendDecorator::countCorrect(const Tensor& logits, const Tensor& labels) {
  arriveSingle(BackendOp::kCountCorrect);
  refuseWhileRecording(BackendOp::kCountCorrect);
  return inner_.countCorrect(logits, labels);
}

std::vector<GradientHistogram> BackendDecorator::gradientHistograms(std::span<const Tensor* const> gradients,
                                                    const StepStateMemory& state) {
  arriveSingle(BackendOp::kGradientHistograms);
  refuseWhileRecording(BackendOp::kGradientHistograms);
  return inner_.gradientHistograms(gradients, state);
}

void BackendDecorator::finishStep(StepStateMemory& state) {
  arriveSingle(BackendOp::kFinishStep);
  queue([this, state]() mutable { inner_.finishStep(state); });
}

void BackendDecorator::setLearningRate(StepStateMemory& state, float learning_rate) {
  arriveSingle(BackendOp::kSetLearningRate);
  queue([this, state, learning_rate]() mutable { inner_.setLearningRate(state, learning_rate); });
}

void BackendDecorator::markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) {
  arriveSingle(BackendOp::kMarkStepPoint);
  queue([this, state, slot, point]() mutable { inner_.markStepPoint(state, slot, point); });
}

void BackendDecorator::copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) {
  arrive(BackendOp::kCopyAll, multiTensorOpLaunches(sources));
  queue([this, from = std::vector<const Tensor*>(sources.begin(), sources.end()),
         to = std::vector<Tensor*>(destinations.begin(), destinations.end())] { inner_.copyAll(from, to); });
}

void BackendDecorator::unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) {
  arrive(BackendOp::kUnscaleGradients,
         multiTensorOpLaunches(std::span<const Tensor* const>(gradients.data(), gradients.size())));
  queue([this, grads = std::vector<Tensor*>(gradients.begin(), gradients.end()), state]() mutable {
    inner_.unscaleGradients(grads, state);
  });
}

void BackendDecorator::clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) {
  arrive(BackendOp::kClipGradients, clipGradientsLaunches(gradients, max_norm));
  queue([this, grads = std::vector<Tensor*>(gradients.begin(), gradients.end()), max_norm, state]() mutable {
    inner_.clipGradients(grads, max_norm, state);
  });
}

void BackendDecorator::sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
                               const StepStateMemory& state) {
  arrive(BackendOp::kSgdStep, multiTensorOpLaunches(parameters));
  queue([this, s, params = std::vector<ParameterTensors>(parameters.begin(), parameters.end()), state] {
    inner_.sgdStep(s, params, state);
  });
}

void BackendDecorator::adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                                 const StepStateMemory& state) {
  arrive(BackendOp::kAdamWStep, multiTensorOpLaunches(parameters));
  queue([this, s, params = std::vector<ParameterTensors>(parameters.begin(), parameters.end()), state] {
    inner_.adamWStep(s, params, state);
  });
}

namespace {

// A step recorded by the decorator: its ops, replayed in order.
class RecordedStep final : public StepGraph {
 public:
  explicit RecordedStep(std::vector<std::function<void()>> ops) : ops_(std::move(ops)) {}
  void replay() override {
    for (const std::function<void()>& op : ops_) op();
  }

 private:
  std::vector<std::function<void()>> ops_;
};

}  // namespace

std::unique_ptr<StepGraph> BackendDecorator::captureStep(const std::function<void()>& step) {
  if (recording_ != nullptr) throw BackendError("capture", "a step is already being captured");
  if (std::unique_ptr<StepGraph> native = inner_.captureStep(step)) return native;
  std::vector<std::function<void()>> ops;
  recording_ = &ops;
  try {
    step();
  } catch (...) {
    recording_ = nullptr;
    throw;
  }
  recording_ = nullptr;
  return std::make_unique<RecordedStep>(std::move(ops));
}

void BackendDecorator::queue(std::function<void()> op) {
  if (recording_ != nullptr) {
    recording_->push_back(std::move(op));
  } else {
    op();
  }
}

void BackendDecorator::refuseWhileRecording(BackendOp op) const {
  if (recording_ != nullptr) {
    throw BackendError("capture", fmt::format("{} reads back, which a captured step cannot", backendOpInfo(op).name));
  }
}

Result<FaultPlan> parseFaultPlan(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::optional<BackendOp> op = parseBackendOp(name);
  if (!op) {
    return Error{fmt::format("fault plan '{}': unknown op '{}' (expected OP or OP:N, OP one of {})", text, name,
                             backendOpNames())};
  }
  FaultPlan plan{*op, 1};
  if (colon != std::string_view::npos) {
    const std::string_view count = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), plan.call);
    if (ec != std::errc() || end != count.data() + count.size() || plan.call < 1) {
      return Error{fmt::format("fault plan '{}': call '{}' is not a whole number from 1", text, count)};
    }
  }
  return plan;
}

void FaultInjectingBackend::arrive(BackendOp op, std::int64_t /*launches*/) {
  if (op != plan_.op || ++calls_ != plan_.call) return;
  throw BackendError("fault injection", fmt::format("{} call {} failed as planned", backendOpInfo(op).name, calls_));
}

}  // namespace ampscope::trainer
