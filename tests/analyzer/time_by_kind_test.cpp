#include "analyzer/core/time_by_kind.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

TEST(PrecisionTimesTest, EmptyUntilAddedEvenWithNoTime) {
  PrecisionTimes times;
  EXPECT_TRUE(times.empty());
  EXPECT_EQ(times.heaviest(), MathPrecision::kUnknown);
  times.add(MathPrecision::kTf32, 0);
  EXPECT_FALSE(times.empty());
  EXPECT_EQ(times.heaviest(), MathPrecision::kTf32);
}

TEST(PrecisionTimesTest, HeaviestIsTheMostTimeAndTheFirstPrecisionOnTies) {
  PrecisionTimes times;
  times.add(MathPrecision::kFp16, 30);
  times.add(MathPrecision::kFp32Simt, 20);
  times.add(MathPrecision::kFp32Simt, 10);
  EXPECT_EQ(times.heaviest(), MathPrecision::kFp32Simt);  // 30 each: kFp32Simt comes first
  times.add(MathPrecision::kFp16, 1);
  EXPECT_EQ(times.heaviest(), MathPrecision::kFp16);
}

TEST(PrecisionTimesTest, SkipFirstPassesOverUnknownTime) {
  PrecisionTimes times;
  times.add(MathPrecision::kUnknown, 100);
  times.add(MathPrecision::kFp32, 0);
  EXPECT_EQ(times.heaviest(), MathPrecision::kUnknown);
  EXPECT_EQ(times.heaviest(true), MathPrecision::kFp32);
  PrecisionTimes unknown_only;
  unknown_only.add(MathPrecision::kUnknown, 5);
  EXPECT_EQ(unknown_only.heaviest(true), MathPrecision::kUnknown);
}

TEST(PhaseTimesTest, VisitsEachAddedPhaseInOrder) {
  PhaseTimes times;
  times.add(trace::Phase::kBackward, 5);
  times.add(trace::Phase::kForward, 0);
  times.add(trace::Phase::kBackward, 2);
  std::vector<std::pair<trace::Phase, std::int64_t>> seen;
  times.forEach([&](trace::Phase phase, std::int64_t ns) { seen.emplace_back(phase, ns); });
  EXPECT_EQ(seen, (std::vector<std::pair<trace::Phase, std::int64_t>>{{trace::Phase::kForward, 0},
                                                                      {trace::Phase::kBackward, 7}}));
  EXPECT_EQ(times.heaviest(), trace::Phase::kBackward);
}

}  // namespace
}  // namespace ampscope::analyzer
