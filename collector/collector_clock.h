#pragma once
// The one clock of a recording. NVTX events and host ops read it directly; CUPTI is told to use
// it too (cuptiActivityRegisterTimestampCallback), so host ranges and GPU records line up without
// any offset estimation. CLOCK_MONOTONIC: never steps back, read through the vDSO in ~20 ns.

#include <cstdint>
#include <ctime>

namespace ampscope::collector {

inline std::int64_t collectorNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace ampscope::collector
