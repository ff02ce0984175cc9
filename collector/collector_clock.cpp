#include "collector/collector_clock.h"

#include <ctime>
#include <fstream>
#include <limits>
#include <string>

namespace ampscope::collector {

namespace {

// The kernel says the counter runs at one rate in every power state and on every core.
bool invariantTsc() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" constant_tsc") != std::string::npos && line.find(" nonstop_tsc") != std::string::npos;
    }
  }
  return false;
}

TscMap calibrate() {
  TscMap map;
#if defined(__x86_64__)
  if (!invariantTsc()) return map;
  // Pairs of (counter, CLOCK_MONOTONIC), 10 ms apart: the slope is the rate. Each pair is the
  // counter read between two clock readings, the tightest of several tries: a thread preempted
  // between its reads (a loaded machine) would otherwise skew the rate and the anchor by the
  // milliseconds it waited.
  const auto sample = [](std::uint64_t& tsc, std::int64_t& ns) {
    std::int64_t tightest = std::numeric_limits<std::int64_t>::max();
    for (int attempt = 0; attempt < 16; ++attempt) {
      const std::int64_t before = monotonicNowNs();
      const std::uint64_t ticks = __rdtsc();
      const std::int64_t after = monotonicNowNs();
      if (after - before < tightest) {
        tightest = after - before;
        tsc = ticks;
        ns = before + (after - before) / 2;
      }
    }
  };
  std::uint64_t tsc0 = 0, tsc1 = 0;
  std::int64_t ns0 = 0, ns1 = 0;
  sample(tsc0, ns0);
  do {
    sample(tsc1, ns1);
  } while (ns1 - ns0 < 10'000'000);
  if (tsc1 <= tsc0) return map;
  map.anchor_tsc = tsc1;
  map.anchor_ns = ns1;
  map.ns_per_tick_q32 = static_cast<std::uint64_t>(
      (static_cast<Uint128>(static_cast<std::uint64_t>(ns1 - ns0)) << 32) / (tsc1 - tsc0));
  map.usable = map.ns_per_tick_q32 != 0;
#endif
  return map;
}

}  // namespace

const TscMap& tscMap() {
  static const TscMap map = calibrate();
  return map;
}

std::int64_t monotonicNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

const char* collectorClockSource() { return tscMap().usable ? "CLOCK_MONOTONIC via TSC" : "CLOCK_MONOTONIC"; }

}  // namespace ampscope::collector
