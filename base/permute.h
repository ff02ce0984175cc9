#pragma once
// Reordering a vector of large records without a second vector of them.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ampscope {

// Puts items[i] where order says: order[k] is the index of the item that belongs at k (a
// permutation of 0..n-1, consumed). Follows each cycle of the permutation, so every item moves
// once and no second vector is needed.
template <typename Items>
void permuteInPlace(Items& items, std::vector<std::uint32_t>& order) {
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    auto held = std::move(items[start]);
    std::size_t at = start;
    while (order[at] != start) {
      const std::size_t from = order[at];
      items[at] = std::move(items[from]);
      order[at] = static_cast<std::uint32_t>(at);
      at = from;
    }
    items[at] = std::move(held);
    order[at] = static_cast<std::uint32_t>(at);
  }
}

}  // namespace ampscope
