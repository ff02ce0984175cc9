#include "reports/verdict_words.h"

#include <fmt/format.h>

namespace ampscope::reports {

using analyzer::TensorCoreUse;

std::string_view tensorCoreCell(TensorCoreUse use) {
  switch (use.value()) {
    case TensorCoreUse::kYes: return "yes";
    case TensorCoreUse::kNo: return "no";
    case TensorCoreUse::kHost: return "host";
    case TensorCoreUse::kUnknown: break;
  }
  return "unknown";
}

std::optional<bool> tensorCoreFlag(TensorCoreUse use) {
  if (use == TensorCoreUse::kYes) return true;
  if (use == TensorCoreUse::kNo) return false;
  return std::nullopt;
}

std::string tensorCoreBrief(const analyzer::TensorCoreVerdict& verdict) {
  switch (verdict.tensor_core.value()) {
    case TensorCoreUse::kYes: return fmt::format("TC {}", analyzer::precisionName(verdict.precision));
    case TensorCoreUse::kUnknown: return "TC?";
    case TensorCoreUse::kHost: return "host";
    case TensorCoreUse::kNo: break;
  }
  return {};
}

}  // namespace ampscope::reports
