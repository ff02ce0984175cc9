#pragma once
// Two runs of one model side by side (FP32 against AMP, 0 against 4 data-loader workers): the
// measured step speedup beside what run A's own analysis predicted, overall and per operator.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/trace_summary.h"

namespace ampscope::analyzer {

struct OperatorComparison {
  std::string name;
  std::int64_t a_ns_per_step = 0;  // GPU time of the operator's kernels per step
  std::int64_t b_ns_per_step = 0;
  double speedup = 0.0;  // a / b; 0 where b has none
};

struct Projection {
  std::string what;   // e.g. "hide the input pipeline"
  double speedup = 1.0;
};

struct RunComparison {
  std::int64_t a_step_ns = 0;  // steady mean step time
  std::int64_t b_step_ns = 0;
  double measured_speedup = 0.0;  // a / b; 0 when either run has no steps
  std::vector<Projection> a_projections;  // what run A's analysis predicted
  std::vector<OperatorComparison> operators;  // by A's GPU time, largest first
  std::vector<OperatorComparison> layers;     // the same per layer, where the traces name layers
};

// Operators and layers are matched by name over both runs' complete tables.
RunComparison compareRuns(const TraceSummary& a, const TraceSummary& b);

}  // namespace ampscope::analyzer
