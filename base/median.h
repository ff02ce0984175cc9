#pragma once
// The median of a list of durations (the upper middle one for an even count; 0 for none), for
// the launch queue, the launch latency and a job's per-rank figures.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampscope {

inline std::int64_t median(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace ampscope
