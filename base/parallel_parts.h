#pragma once
// Cuts a run of items into contiguous parts and works on the parts side by side (runTasks).
// Contiguous parts keep each thread's memory its own and let a caller put the
// results together in the items' order.

#include <algorithm>
#include <cstddef>

#include "base/task_queue.h"

namespace ampscope {

// The parts `count` items are cut into: at most `threads`, none smaller than `min_items` (below it
// a thread costs more than it saves), and at least one.
inline std::size_t partsFor(std::size_t count, unsigned threads, std::size_t min_items) {
  const std::size_t most = std::max<std::size_t>(1, count / std::max<std::size_t>(1, min_items));
  return std::clamp<std::size_t>(threads, 1, most);
}

// work(part, begin, end) for each part [begin, end) of [0, count), `parts` of them as even as can
// be, each on a worker of its own (runTasks). Returns when all have ended; then rethrows the
// exception of the first part that threw.
template <typename Work>
void forEachPart(std::size_t count, std::size_t parts, const Work& work) {
  parts = std::max<std::size_t>(1, parts);
  const auto begin = [&](std::size_t part) { return count * part / parts; };
  runTasks(parts, parts, [&](std::size_t part, std::size_t /*worker*/) { work(part, begin(part), begin(part + 1)); });
}

}  // namespace ampscope
