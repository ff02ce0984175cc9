#pragma once
// One malloc arena for the programs that read and analyze traces. glibc gives each thread that
// allocates an arena of its own (up to eight per core), and memory freed in one arena is reused
// only by allocations from it: the analysis runs stages on threads side by side, each leaving its
// freed memory where the next stage, on another thread, could not reuse it. Measured on two cores
// (docs/benchmarks.md): the 792 MB Nsight export's peak 815-823 MiB to 783-800 MiB, a 528.8 MB
// Kineto trace's 189-197 MiB to 143-148 MiB, the times the same. Call before any thread starts.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ampscope {

inline void useOneMallocArena() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
#endif
}

}  // namespace ampscope
