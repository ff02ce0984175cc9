#include "analyzer/advice/memory_comparison.h"

#include <cmath>

namespace ampscope::analyzer {

MemoryComparison compareMemory(const TraceSummary& a, const TraceSummary& b, bool amp_change) {
  MemoryComparison out;
  const DeviceMemory* a_device = a.memory.primaryDevice();
  const DeviceMemory* b_device = b.memory.primaryDevice();
  if (a_device == nullptr || b_device == nullptr) {
    out.note = a_device == nullptr && b_device == nullptr ? "neither run recorded memory events"
               : a_device == nullptr                      ? "run A recorded no memory events"
                                                          : "run B recorded no memory events";
    return out;
  }
  out.measured = true;
  // The steps' peaks (the trace's where a run has no steps): what the projection is of.
  out.a_peak_allocated_bytes = a.memory.amp.measured_peak_allocated_bytes;
  out.b_peak_allocated_bytes = b.memory.amp.measured_peak_allocated_bytes;
  if (!amp_change) {
    out.note = "A's analysis projects the peak for AMP only, and B is not A with AMP";
    return out;
  }
  if (!a.memory.amp.applies) {
    out.note = "A has no AMP memory projection: " + a.memory.amp.note;
    return out;
  }
  const auto error = [&](std::int64_t predicted) -> std::optional<double> {
    if (predicted <= 0 || out.b_peak_allocated_bytes <= 0) return std::nullopt;
    return std::log(static_cast<double>(predicted) / static_cast<double>(out.b_peak_allocated_bytes));
  };
  out.predicted_b_peak_bytes = a.memory.amp.projected_peak_allocated_bytes;
  out.prediction_error = error(*out.predicted_b_peak_bytes);
  if (a.memory.master_weights.applies) {
    out.master_weights_predicted_b_peak_bytes = a.memory.master_weights.projected_peak_allocated_bytes;
    out.master_weights_prediction_error = error(*out.master_weights_predicted_b_peak_bytes);
  }
  out.note = "A's memory projections (autocast; a half model with FP32 master weights) against B's measured peak";
  return out;
}

}  // namespace ampscope::analyzer
