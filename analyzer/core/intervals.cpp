#include "analyzer/core/intervals.h"

#include <algorithm>

#include "analyzer/core/sorted_runs.h"

namespace ampscope::analyzer {

std::vector<Interval> unite(std::vector<Interval> intervals) {
  // Recorded in time order (kernels, then copies): a few sorted runs to merge.
  sortMostlySorted(intervals);
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (i.first >= i.second) continue;
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

std::int64_t length(const std::vector<Interval>& intervals) {
  std::int64_t total = 0;
  for (const auto& [start, end] : intervals) total += end - start;
  return total;
}

std::int64_t shared(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::int64_t total = 0;
  std::size_t j = 0;
  for (const Interval& i : a) {
    while (j < b.size() && b[j].second <= i.first) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < i.second; ++k) {
      total += std::min(i.second, b[k].second) - std::max(i.first, b[k].first);
    }
  }
  return total;
}

std::int64_t lengthWithin(const std::vector<Interval>& intervals, std::int64_t from, std::int64_t to) {
  auto first = std::lower_bound(intervals.begin(), intervals.end(), from,
                                [](const Interval& i, std::int64_t t) { return i.second <= t; });
  std::int64_t total = 0;
  for (auto it = first; it != intervals.end() && it->first < to; ++it) {
    total += std::min(it->second, to) - std::max(it->first, from);
  }
  return total;
}

}  // namespace ampscope::analyzer
