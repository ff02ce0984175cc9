#pragma once
// What a --threads count of 0 ("every hardware thread") stands for, in one place for the import,
// the analysis and a job's reader.

#include <algorithm>
#include <thread>

namespace ampscope {

inline unsigned threadsToUse(unsigned requested) {
  return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace ampscope
