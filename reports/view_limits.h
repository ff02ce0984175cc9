#pragma once
// How much of the complete analysis a view shows: `--top N` cuts ranked lists (operators, their
// kernels, shape checks) here, in the views, never in the analysis, so no finding depends on it.

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace ampscope::reports {

inline constexpr std::size_t kDefaultTop = 10;

// The first n items of a list the analysis ranked (heaviest first).
template <typename T>
std::span<const T> firstN(const std::vector<T>& items, std::size_t n) {
  return {items.data(), std::min(n, items.size())};
}

}  // namespace ampscope::reports
