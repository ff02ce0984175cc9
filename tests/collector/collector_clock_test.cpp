#include "collector/collector_clock.h"

#include <gtest/gtest.h>

namespace ampscope::collector {
namespace {

// The counter is mapped by a line fitted over 10 ms, so against CLOCK_MONOTONIC it may be off by
// a few parts per million of the time since calibration plus the calibration reads themselves:
// far below this over a test's run.
constexpr std::int64_t kToleranceNs = 200'000;

TEST(CollectorClockTest, ARawReadingConvertsToTheMonotonicTimeItWasTakenAt) {
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t before = monotonicNowNs();
    const std::uint64_t ticks = collectorTicks();
    const std::int64_t after = monotonicNowNs();
    const std::int64_t ns = collectorTicksToNs(ticks);
    ASSERT_GE(ns, before - kToleranceNs);
    ASSERT_LE(ns, after + kToleranceNs);
  }
}

TEST(CollectorClockTest, ConvertedReadingsNeverGoBackwardsOnOneThread) {
  std::int64_t last = collectorNowNs();
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t now = collectorTicksToNs(collectorTicks());
    ASSERT_GE(now, last) << "reading " << i;
    last = now;
  }
}

TEST(CollectorClockTest, AReadingBeforeTheAnchorGivesATimeBeforeIt) {
  const TscMap& map = tscMap();
  if (!map.usable) GTEST_SKIP() << "no invariant TSC here: the clock is clock_gettime, ticks are nanoseconds";
  // Another core's counter can read a little behind the one that calibrated: that must not wrap
  // into a time centuries ahead.
  const std::int64_t behind = collectorTicksToNs(map.anchor_tsc - 1000);
  EXPECT_LT(behind, map.anchor_ns);
  EXPECT_GT(behind, map.anchor_ns - 10'000);  // 1000 ticks are well under 10 us on any x86
  EXPECT_EQ(collectorTicksToNs(map.anchor_tsc), map.anchor_ns);
}

}  // namespace
}  // namespace ampscope::collector
