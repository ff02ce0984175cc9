#pragma once
// The one clock of a recording. NVTX records, host ops and counters read it directly; CUPTI is
// told to use it too (cuptiActivityRegisterTimestampCallback), so host ranges and GPU records
// line up without any offset estimation.
//
// It is CLOCK_MONOTONIC's nanoseconds, read through the CPU's invariant time-stamp counter where
// there is one: an NVTX push+pop reads the clock twice, and RDTSC costs a fraction of a
// clock_gettime call. The counter is mapped to nanoseconds by one fixed line (fitted against
// CLOCK_MONOTONIC when the process first reads the clock), so every timestamp of a recording goes
// through the same map and they stay exactly comparable; against CLOCK_MONOTONIC itself they may
// drift by a few parts per million. Without an invariant counter (or off x86) it is
// clock_gettime(CLOCK_MONOTONIC).

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ampscope::collector {

// 64x64 -> 128-bit products for the tick-to-nanosecond map (a GCC/Clang extension, as marked).
__extension__ using Uint128 = unsigned __int128;
__extension__ using Int128 = __int128;

struct TscMap {
  bool usable = false;
  std::uint64_t anchor_tsc = 0;
  std::int64_t anchor_ns = 0;
  std::uint64_t ns_per_tick_q32 = 0;  // nanoseconds per tick, fixed point with 32 fraction bits
};

// The map, calibrated on first use (about 10 ms, once per process).
const TscMap& tscMap();
std::int64_t monotonicNowNs();
// "tsc" or "clock_gettime": how collectorNowNs reads time, for the profile's metadata.
const char* collectorClockSource();

// The clock's raw reading: TSC ticks where the map is usable, else nanoseconds. The NVTX hot path
// logs this and leaves the conversion to the writer thread (collectorTicksToNs), which saves the
// program's thread a 128-bit multiply per record.
inline std::uint64_t collectorTicks() {
#if defined(__x86_64__)
  if (tscMap().usable) return __rdtsc();
#endif
  return static_cast<std::uint64_t>(monotonicNowNs());
}

// A reading of collectorTicks in the recording's nanoseconds. Signed from the anchor: another
// core's counter may read a few ticks behind the one that calibrated.
inline std::int64_t collectorTicksToNs(std::uint64_t ticks) {
#if defined(__x86_64__)
  const TscMap& map = tscMap();
  if (map.usable) {
    const auto since_anchor = static_cast<std::int64_t>(ticks - map.anchor_tsc);
    const auto ns = static_cast<std::int64_t>((static_cast<Int128>(since_anchor) * static_cast<Int128>(map.ns_per_tick_q32)) >> 32);
    return map.anchor_ns + ns;
  }
#endif
  return static_cast<std::int64_t>(ticks);
}

inline std::int64_t collectorNowNs() { return collectorTicksToNs(collectorTicks()); }

}  // namespace ampscope::collector
