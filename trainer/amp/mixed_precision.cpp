#include "trainer/amp/mixed_precision.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace ampscope::trainer {

namespace {

constexpr std::array<std::pair<PrecisionMode, std::string_view>, 6> kNames = {{
    {PrecisionMode::kFp32, "fp32"},
    {PrecisionMode::kTf32, "tf32"},
    {PrecisionMode::kAmpFp16, "amp-fp16"},
    {PrecisionMode::kAmpBf16, "amp-bf16"},
    {PrecisionMode::kFp16Master, "fp16-master"},
    {PrecisionMode::kFp16Pure, "fp16-pure"},
}};

}  // namespace

std::optional<PrecisionMode> parsePrecisionMode(std::string_view text) {
  for (const auto& [mode, name] : kNames) {
    if (name == text) return mode;
  }
  return std::nullopt;
}

const char* precisionModeName(PrecisionMode mode) {
  for (const auto& [m, name] : kNames) {
    if (m == mode) return name.data();
  }
  return "fp32";
}

PrecisionPlan planFor(PrecisionMode mode) {
  PrecisionPlan plan;
  switch (mode) {
    case PrecisionMode::kFp32: break;
    case PrecisionMode::kTf32: plan.tf32 = true; break;
    case PrecisionMode::kAmpFp16:
      plan.autocast = DType::kFp16;
      plan.default_loss_scaling = LossScaling::kDynamic;
      break;
    case PrecisionMode::kAmpBf16: plan.autocast = DType::kBf16; break;
    case PrecisionMode::kFp16Master:
      plan.parameters = DType::kFp16;
      plan.input = DType::kFp16;
      plan.master_weights = true;
      plan.default_loss_scaling = LossScaling::kDynamic;
      break;
    case PrecisionMode::kFp16Pure:
      plan.parameters = DType::kFp16;
      plan.input = DType::kFp16;
      break;
  }
  return plan;
}

AutocastPolicy::AutocastPolicy()
    : allow_{"matmul", "linear", "mm", "bmm", "addmm", "baddbmm", "conv1d", "conv2d", "conv3d",
             "conv_transpose2d"},
      deny_{"softmax", "log_softmax", "cross_entropy", "softmax_cross_entropy", "nll_loss", "mse_loss",
            "exp", "log", "pow", "sum", "mean", "norm", "layer_norm", "group_norm"} {}
// batch_norm is on neither list, as in torch.autocast: it runs in its input's type (cuDNN's batch
// norm takes FP16/BF16 activations with FP32 scale, bias and statistics), so a CNN's activations
// after a convolution stay half precision through norm, activation and pooling.

void AutocastPolicy::allow(std::string op) {
  deny_.erase(op);
  allow_.insert(std::move(op));
}

void AutocastPolicy::deny(std::string op) {
  allow_.erase(op);
  deny_.insert(std::move(op));
}

CastList AutocastPolicy::listOf(std::string_view op) const {
  if (allow_.find(op) != allow_.end()) return CastList::kAllow;
  if (deny_.find(op) != deny_.end()) return CastList::kDeny;
  return CastList::kFollowInputs;
}

DType AutocastPolicy::computeType(std::string_view op, DType low_precision, DType input) const {
  if (low_precision == DType::kFp32) return input;  // autocast off
  switch (listOf(op)) {
    case CastList::kAllow: return low_precision;
    case CastList::kDeny: return DType::kFp32;
    case CastList::kFollowInputs: break;
  }
  return input;
}

ScalerState initialScalerState(const LossScalerConfig& config, std::int32_t slots) {
  ScalerState s;
  s.mode = config.mode;
  s.scale = config.mode == LossScaling::kNone ? 1.0f : static_cast<float>(config.initial_scale);
  s.growth_factor = static_cast<float>(config.growth_factor);
  s.backoff_factor = static_cast<float>(config.backoff_factor);
  s.growth_interval = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(config.growth_interval, 1, std::numeric_limits<std::int32_t>::max()));
  s.slots = std::max<std::int32_t>(1, slots);
  return s;
}

}  // namespace ampscope::trainer
