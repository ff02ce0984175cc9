#pragma once
// The memory side of two runs compared: B's measured peak beside what A's analysis projected for
// B's change (docs/memory.md, "Scoring the projection"). Read from the two summaries only.

#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

struct MemoryComparison {
  // Both runs recorded memory events: the peaks below are measured (allocated, primary device,
  // the highest inside the steps: AmpMemoryProjection::measured_peak_allocated_bytes).
  bool measured = false;
  std::int64_t a_peak_allocated_bytes = 0;
  std::int64_t b_peak_allocated_bytes = 0;
  // A's projections of B's peak for the change B made (AMP), one per half-precision recipe: the
  // traces do not say whether B used autocast or a half model with FP32 master weights, so both
  // are scored; nullopt where A projected nothing.
  std::optional<std::int64_t> predicted_b_peak_bytes;                 // autocast
  std::optional<std::int64_t> master_weights_predicted_b_peak_bytes;  // a half model, FP32 master weights
  // ln(predicted / measured), as the speed's prediction_error; nullopt when either side is missing.
  std::optional<double> prediction_error;
  std::optional<double> master_weights_prediction_error;
  std::string note;  // what is compared, or why nothing is
};

// `amp_change`: B is A with automatic mixed precision (RunChange::kAmp).
MemoryComparison compareMemory(const TraceSummary& a, const TraceSummary& b, bool amp_change);

}  // namespace ampscope::analyzer
