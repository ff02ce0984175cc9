#pragma once
// std::upper_bound over a sorted sequence for keys that come mostly in increasing order (events of
// one thread, visited in time order): it steps on from its last answer instead of searching the
// whole sequence each time, and searches only when a key goes back. Keys that jump back and
// forth would make it step over the same elements again: it is for keys in (nearly) that order.

#include <cstddef>
#include <cstdint>
#include <limits>
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
      next_ = firstAfter(key);
    } else {
      while (next_ < size_ && key_of_(next_) <= key) ++next_;
    }
    last_key_ = key;
    return next_;
  }

 private:
  // The first index whose key is after `key`, by binary search (a plain loop: std::ranges over an
  // iota view of indices does not compile with clang and libstdc++ 12).
  std::size_t firstAfter(std::int64_t key) const {
    std::size_t low = 0;
    std::size_t high = size_;
    while (low < high) {
      const std::size_t middle = low + (high - low) / 2;
      if (key_of_(middle) <= key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  std::size_t size_;
  KeyOf key_of_;
  std::size_t next_ = 0;
  std::int64_t last_key_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace ampscope::analyzer
