#pragma once
// Misaligned GEMM dimensions grouped by cause: one finding per size to pad (vocabulary 33,278,
// hidden 1,705), listing every op call shape that has it as a GEMM dimension, with the time the
// time model puts on it. A user pads a size once, in the model's configuration, and every op that
// uses it is fixed together; a row per op shape would repeat the same advice.
//
// A call with several misaligned sizes (N=100 and K=1705) splits its cost between them by what
// padding each size alone would save, scaled so that the parts add up to the cost of padding all
// of them: the findings' gains never count one nanosecond twice.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

// One op call shape that has the size as a GEMM dimension.
struct PaddedOp {
  const ShapeCheck* check = nullptr;  // into the summary's shape checks
  std::string dimensions;  // where the size sits in its GEMM: "N", "K, C"
  std::int64_t gain_ns = 0;  // its share of the cost, per step (0 when not estimated)
  bool estimated = false;
  std::string cost;  // the model's statement of the cost, or why it gives none
};

struct PaddingFinding {
  std::int64_t value = 0;
  std::int64_t padded = 0;  // the next multiple of required_multiple
  int required_multiple = 0;  // the largest its ops' precisions want
  MathPrecision precision = MathPrecision::kUnknown;  // of the heaviest op's kernels
  std::vector<PaddedOp> ops;  // heaviest first
  std::int64_t gpu_time_ns = 0;  // of the ops' kernels, over the trace
  std::uint64_t calls = 0;
  std::int64_t gain_ns = 0;  // per step (or per window without steps): the ops' gains summed
};

// Largest gain first, then largest time.
std::vector<PaddingFinding> findPaddingCauses(const TraceSummary& summary);

}  // namespace ampscope::analyzer
