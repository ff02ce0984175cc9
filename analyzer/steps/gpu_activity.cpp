#include "analyzer/steps/gpu_activity.h"

#include <algorithm>

#include "analyzer/core/sorted_runs.h"

namespace ampscope::analyzer {

GpuActivity::GpuActivity(const trace::Trace& trace, Work work, std::optional<std::uint32_t> device) {
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
  intervals.reserve(trace.kernels.size() + trace.memory_ops.size());
  for (const trace::Kernel& k : trace.kernels) {
    if (!device || k.device == *device) intervals.emplace_back(k.start_ns, k.end_ns);
  }
  if (work == Work::kKernelsAndCopies) {
    for (const trace::MemoryOp& m : trace.memory_ops) {
      if (!device || m.device == *device) intervals.emplace_back(m.start_ns, m.end_ns);
    }
  }
  // Recorded in time order (kernels, then copies): a few sorted runs to merge.
  sortMostlySorted(intervals);
  for (const auto& [start, end] : intervals) {
    if (!busy_.empty() && start <= busy_.back().second) {
      busy_.back().second = std::max(busy_.back().second, end);
    } else {
      busy_.emplace_back(start, end);
    }
  }
  busy_before_.reserve(busy_.size() + 1);
  busy_before_.push_back(0);
  for (const auto& [start, end] : busy_) busy_before_.push_back(busy_before_.back() + (end - start));
}

std::int64_t GpuActivity::busyWithin(std::int64_t start_ns, std::int64_t end_ns) const {
  if (end_ns <= start_ns || busy_.empty()) return 0;
  // First interval ending after start_ns, last interval starting before end_ns.
  const auto first = std::upper_bound(busy_.begin(), busy_.end(), start_ns,
                                      [](std::int64_t t, const auto& interval) { return t < interval.second; });
  const auto last = std::lower_bound(busy_.begin(), busy_.end(), end_ns,
                                     [](const auto& interval, std::int64_t t) { return interval.first < t; });
  if (first >= last) return 0;
  const auto first_index = static_cast<std::size_t>(first - busy_.begin());
  const auto last_index = static_cast<std::size_t>(last - busy_.begin());
  std::int64_t total = busy_before_[last_index] - busy_before_[first_index];
  // Trim the parts of the end intervals that stick out of [start_ns, end_ns).
  total -= std::max<std::int64_t>(0, start_ns - first->first);
  total -= std::max<std::int64_t>(0, (last - 1)->second - end_ns);
  return total;
}

std::int64_t GpuActivity::busyTotal() const { return busy_before_.back(); }

}  // namespace ampscope::analyzer
