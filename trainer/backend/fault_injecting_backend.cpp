#include "trainer/backend/fault_injecting_backend.h"

#include <charconv>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"

namespace ampscope::trainer {

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
