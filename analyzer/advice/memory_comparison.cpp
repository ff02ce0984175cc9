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
  out.a_peak_allocated_bytes = a_device->peak_allocated_bytes;
  out.b_peak_allocated_bytes = b_device->peak_allocated_bytes;
  if (!amp_change) {
    out.note = "A's analysis projects the peak for AMP only, and B is not A with AMP";
    return out;
  }
  if (!a.memory.amp.applies) {
    out.note = "A has no AMP memory projection: " + a.memory.amp.note;
    return out;
  }
  out.predicted_b_peak_bytes = a.memory.amp.projected_peak_allocated_bytes;
  out.note = "A's AMP memory projection against B's measured peak";
  if (*out.predicted_b_peak_bytes > 0 && out.b_peak_allocated_bytes > 0) {
    out.prediction_error = std::log(static_cast<double>(*out.predicted_b_peak_bytes) /
                                    static_cast<double>(out.b_peak_allocated_bytes));
  }
  return out;
}

}  // namespace ampscope::analyzer
