#include "analyzer/normalise/phase_rules.h"

#include <charconv>

namespace ampscope::analyzer {

namespace {
bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
bool isStepMarker(std::string_view name) {
  if (startsWith(name, "ProfilerStep#")) return true;
  // The trainer's "step N".
  if (!startsWith(name, "step ") || name.size() == 5) return false;
  for (char c : name.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}
}  // namespace

trace::Phase phaseFromName(std::string_view name) {
  using trace::Phase;
  if (isStepMarker(name)) return Phase::kStep;
  if (startsWith(name, "enumerate(DataLoader)") || name == "data") return Phase::kData;
  if (startsWith(name, "Optimizer.") || name == "optimizer" || name == "## zero_grad ##" ||
      name == "## optimizer ##") {
    return Phase::kOptimizer;
  }
  if (name == "loss_scale") return Phase::kLossScale;
  if (startsWith(name, "autograd::engine::evaluate_function") || name == "backward" ||
      startsWith(name, "torch::autograd::")) {
    return Phase::kBackward;
  }
  // PyProf's autograd markers: "NllLossBackward, seq = 228" arrives here as "NllLossBackward".
  const std::string_view base = name.substr(0, name.find(','));
  if (endsWith(base, "Backward") || endsWith(base, "Backward0") || endsWith(base, "Backward1")) {
    return Phase::kBackward;
  }
  if (name == "forward") return Phase::kForward;
  return Phase::kUnknown;
}

std::int64_t stepNumberFromName(std::string_view name) {
  if (!isStepMarker(name)) return -1;
  const std::size_t at = name.find_last_not_of("0123456789");
  if (at == std::string_view::npos || at + 1 == name.size()) return -1;
  std::int64_t number = -1;
  const auto [end, ec] = std::from_chars(name.data() + at + 1, name.data() + name.size(), number);
  return ec == std::errc() && end == name.data() + name.size() ? number : -1;
}

std::string_view moduleFromPythonFrame(std::string_view name) {
  constexpr std::string_view kPrefix = "nn.Module: ";
  if (!startsWith(name, kPrefix)) return {};
  return name.substr(kPrefix.size());
}

}  // namespace ampscope::analyzer
