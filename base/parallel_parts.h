#pragma once
// Cuts a run of items into contiguous parts and works on the parts side by side: the calling
// thread takes the first part, each other part gets a thread where the system gives one
// (runBeside). Contiguous parts keep each thread's memory its own and let a caller put the
// results together in the items' order.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <future>
#include <vector>

#include "base/run_beside.h"

namespace ampscope {

// The parts `count` items are cut into: at most `threads`, none smaller than `min_items` (below it
// a thread costs more than it saves), and at least one.
inline std::size_t partsFor(std::size_t count, unsigned threads, std::size_t min_items) {
  const std::size_t most = std::max<std::size_t>(1, count / std::max<std::size_t>(1, min_items));
  return std::clamp<std::size_t>(threads, 1, most);
}

// work(part, begin, end) for each part [begin, end) of [0, count), `parts` of them as even as can
// be. Returns when all have ended; then rethrows the first part's exception, in part order.
template <typename Work>
void forEachPart(std::size_t count, std::size_t parts, const Work& work) {
  parts = std::max<std::size_t>(1, parts);
  const auto begin = [&](std::size_t part) { return count * part / parts; };
  std::vector<std::future<void>> others;
  others.reserve(parts - 1);
  std::exception_ptr first_failure;
  try {
    for (std::size_t part = 1; part < parts; ++part) {
      others.push_back(runBeside(true, [&work, &begin, part] { work(part, begin(part), begin(part + 1)); }));
    }
    work(std::size_t{0}, begin(0), begin(1));
  } catch (...) {
    first_failure = std::current_exception();
  }
  for (std::future<void>& other : others) {
    try {
      other.get();
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace ampscope
