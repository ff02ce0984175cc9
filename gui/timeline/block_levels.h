#pragma once
// A range [first, last) of a row's elements covered by whole blocks of a pyramid of block
// summaries (level k + 1 holds one entry per `branching` entries of level k; level 0 is the
// elements themselves): the elements at the ragged ends, then whole blocks from the highest level
// that holds them. O(branching · log n) visits instead of last - first. Plain C++: no Qt.

#include <cstddef>

namespace ampscope::gui {

// visit(level, index): one element (level 0) or one block summary (level >= 1) of the cover.
// `levels`: how many summary levels exist above the elements.
template <typename Visit>
void visitBlockCover(std::size_t first, std::size_t last, std::size_t levels, std::size_t branching, Visit&& visit) {
  std::size_t lo = first;
  std::size_t hi = last;
  for (std::size_t level = 0; lo < hi; ++level) {
    if (level == levels) {
      for (std::size_t i = lo; i < hi; ++i) visit(level, i);
      break;
    }
    while (lo < hi && lo % branching != 0) visit(level, lo++);
    while (lo < hi && hi % branching != 0) visit(level, --hi);
    lo /= branching;
    hi /= branching;
  }
}

}  // namespace ampscope::gui
