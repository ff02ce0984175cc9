#pragma once
// Sorting values that come mostly in order already: GPU records are stored in time order, kernels
// first and then copies, so a queue's or a stream's start times are one or two sorted runs. A
// merge of a few runs is linear; std::sort would pay n log n for order that is already there.
// For values whose order is total (no two equal elements told apart), the result is std::sort's.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ampscope::analyzer {

// Merging more runs than this costs more than it saves.
inline constexpr std::size_t kMaxRunsToMerge = 4;

template <typename T>
void sortMostlySorted(std::vector<T>& values) {
  std::vector<std::size_t> run_starts;  // where each run of ascending values begins
  auto run = values.begin();
  while (run != values.end()) {
    run_starts.push_back(static_cast<std::size_t>(run - values.begin()));
    if (run_starts.size() > kMaxRunsToMerge) {
      std::sort(values.begin(), values.end());
      return;
    }
    run = std::is_sorted_until(run, values.end());
  }
  // Fold each run into the sorted front.
  for (std::size_t r = 1; r < run_starts.size(); ++r) {
    const auto end = r + 1 < run_starts.size() ? values.begin() + static_cast<std::ptrdiff_t>(run_starts[r + 1]) : values.end();
    std::inplace_merge(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(run_starts[r]), end);
  }
}

}  // namespace ampscope::analyzer
