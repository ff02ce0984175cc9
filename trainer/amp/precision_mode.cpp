#include "trainer/amp/precision_mode.h"

#include <array>
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

}  // namespace ampscope::trainer
