#pragma once
// Two runs compared by the GPU work of their whole traces, for pairs without steps to compare (an
// FP32 and an FP16 trace of one inference call, one forward pass): how much work each trace holds
// (the calls of the op call shapes both ran), the measured speedup of the GPU busy time with B's
// scaled to A's amount of work, and what A's per-op model predicted for A's GPU work under the
// detected change. Model and limits: docs/diff.md, "Pairs without steps".

#include <optional>
#include <string>
#include <vector>

#include "analyzer/advice/run_comparison.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

// `operators`: the paired op call shapes (their whole-trace times and calls filled in).
GpuWorkComparison compareGpuWork(const TraceSummary& a, const TraceSummary& b,
                                 const std::vector<OperatorComparison>& operators);

struct GpuWorkPrediction {
  std::optional<double> speedup;  // of A's kernel time; nullopt where A's model has none
  std::string from;               // which of A's figures, or why there is none
};

// The speedup A's per-op model predicts for its GPU work under `change`: its kernel time over the
// same with each op's time replaced by its prediction (AMP, TF32) or less the padding gains; the
// kernels of no op row, and ops the change leaves alone, at 1x.
GpuWorkPrediction predictGpuWork(const TraceSummary& a, RunChange change);

}  // namespace ampscope::analyzer
