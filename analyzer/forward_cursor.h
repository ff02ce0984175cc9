#pragma once
// std::upper_bound over a sorted sequence for keys that come mostly in increasing order (events of
// one thread, visited in time order): it moves on from its last answer instead of searching the
// whole sequence each time, and searches only when a key goes back.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ranges>
#include <utility>

namespace ampscope::analyzer {

// key_of(i): the key of the i-th element, non-decreasing in i.
template <typename KeyOf>
class ForwardCursor {
 public:
  ForwardCursor(std::size_t size, KeyOf key_of) : size_(size), key_of_(std::move(key_of)) {}

  // How many elements have a key at or before `key` (the index std::upper_bound would give).
  std::size_t upTo(std::int64_t key) {
    if (key < last_key_) {
      const auto indices = std::views::iota(std::size_t{0}, size_);
      next_ = *std::ranges::upper_bound(indices, key, std::less<>{}, key_of_);
    } else {
      while (next_ < size_ && key_of_(next_) <= key) ++next_;
    }
    last_key_ = key;
    return next_;
  }

 private:
  std::size_t size_;
  KeyOf key_of_;
  std::size_t next_ = 0;
  std::int64_t last_key_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace ampscope::analyzer
