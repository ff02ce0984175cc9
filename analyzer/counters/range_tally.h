#pragma once
// What a set of profiled ranges adds up to: each metric's total, the CUDA-core operations their
// instruction counts give, and the tensor pipe's busy share weighted by kernel time (or by range
// where the ranges have no times). Kernel names and layers tally their ranges alike.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/counters/counter_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

class RangeTally {
 public:
  // Adds one range. Returns its tensor share where it has one, for the caller's per-kernel table.
  std::optional<double> add(const trace::Trace& trace, const trace::KernelMetrics& range);

  std::uint64_t ranges() const { return ranges_; }
  std::uint64_t matched() const { return matched_; }
  // Each metric's total, by metric name.
  std::vector<MetricTotal> totals(const trace::Trace& trace) const;
  const std::optional<CudaCoreOps>& cudaCoreOps() const { return cuda_core_ops_; }
  std::optional<double> share() const;
  std::optional<bool> busy() const { return busy_; }  // nullopt: no tensor metric in any range
  std::string basis() const;                         // the metrics the share was read from

 private:
  std::uint64_t ranges_ = 0;
  std::uint64_t matched_ = 0;
  std::map<trace::StringId, MetricTotal> totals_;
  std::optional<CudaCoreOps> cuda_core_ops_;
  double share_weighted_ = 0.0;
  double share_weight_ = 0.0;
  std::optional<bool> busy_;
  std::set<std::string> basis_;
};

}  // namespace ampscope::analyzer
