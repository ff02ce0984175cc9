#include "trainer/backend/fault_injecting_backend.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "trainer/backend/backend_error.h"

namespace ampscope::trainer {

namespace {

// The Backend methods that do work (not device, description or setTf32).
constexpr std::array<std::string_view, 28> kOps = {
    "allocate", "upload", "download", "fill", "copy", "scale", "synchronize", "gemm", "convForward",
    "convBackwardData", "convBackwardFilter", "addBias", "biasGradient", "activationForward", "activationBackward",
    "batchNormForward", "batchNormBackward", "layerNormForward", "layerNormBackward", "poolForward", "poolBackward",
    "softmaxCrossEntropy", "countCorrect", "unscaleAndCheck", "squaredNorm", "gradientHistogram", "sgdStep",
    "adamWStep"};

}  // namespace

Result<FaultPlan> parseFaultPlan(std::string_view text) {
  const std::size_t colon = text.find(':');
  FaultPlan plan{std::string(text.substr(0, colon)), 1};
  if (std::find(kOps.begin(), kOps.end(), plan.op) == kOps.end()) {
    return Error{fmt::format("fault plan '{}': unknown op '{}' (expected OP or OP:N, OP one of {})", text, plan.op,
                             fmt::join(kOps, ", "))};
  }
  if (colon != std::string_view::npos) {
    const std::string_view count = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), plan.call);
    if (ec != std::errc() || end != count.data() + count.size() || plan.call < 1) {
      return Error{fmt::format("fault plan '{}': call '{}' is not a whole number from 1", text, count)};
    }
  }
  return plan;
}

FaultInjectingBackend::FaultInjectingBackend(std::unique_ptr<Backend> inner, FaultPlan plan)
    : inner_(std::move(inner)), plan_(std::move(plan)) {}

void FaultInjectingBackend::arrive(std::string_view op) {
  if (op != plan_.op || ++calls_ != plan_.call) return;
  throw BackendError("fault injection", fmt::format("{} call {} failed as planned", op, calls_));
}

}  // namespace ampscope::trainer
