#pragma once
// What one profiled range's metrics say of the tensor pipe: the share of cycles it was busy, or
// at least whether it was busy at all, and which metrics said so. Exact: a range profiler counts
// every cycle of the one kernel in the range.

#include <optional>
#include <string>

#include "analyzer/counters/counter_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct RangeTensorReading {
  std::optional<double> share;  // busy share of elapsed (or, where only that was recorded, active) cycles
  std::optional<bool> busy;     // any tensor cycle or MMA instruction counted; nullopt: no tensor metric
  std::string basis;            // the metric(s) read
};

// In order of preference: a tensor-pipe percentage (the whole pipe, else its ops' added up); a
// count of busy cycles over the elapsed cycles of the same unit and rollup; a count of busy cycles
// or MMA instructions alone (busy or not, no share).
RangeTensorReading readTensorPipe(const trace::Trace& trace, const trace::KernelMetrics& range);

// The floating-point operations its CUDA-core instruction counts add up to; nullopt where none
// was recorded.
std::optional<CudaCoreOps> readCudaCoreOps(const trace::Trace& trace, const trace::KernelMetrics& range);

}  // namespace ampscope::analyzer
