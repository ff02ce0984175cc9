// The metrics chosen for real chips, from CUPTI's own lists: the profiler host API (libnvperf_host
// behind libcupti) needs only a chip's name, no GPU, so this runs wherever the CUDA toolkit is.

#include "collector/cupti/real_counter_profiler_api.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace ampscope::collector {
namespace {

constexpr const char* kTensorShare = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kSmShare = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";

class RealChipMetricsTest : public ::testing::Test {
 protected:
  // The metrics chosen for chip, or a skip where this libcupti cannot evaluate its names.
  std::vector<std::string> choose(CounterProfiler profiler, const std::string& chip) {
    std::vector<std::string> names;
    const CounterCall listed = api_.baseMetrics(profiler, chip, {}, &names);
    if (!listed.ok()) {
      skipped_ = listed.call + " failed for " + chip + ": " + api_.resultString(listed.result);
      return {};
    }
    const std::set<std::string, std::less<>> base(names.begin(), names.end());
    const MetricChoice choice = chooseMetrics(profiler, base, [&](const std::vector<std::string>& metrics) -> trace::Result<std::size_t> {
      std::size_t passes = 0;
      const CounterCall call = api_.passes(profiler, chip, {}, metrics, &passes);
      if (!call.ok()) return trace::Error{call.call + ": " + api_.resultString(call.result)};
      return passes;
    });
    return choice.metrics;
  }

  RealCounterProfilerApi api_;
  std::string skipped_;
};

TEST_F(RealChipMetricsTest, PmSamplingRecordsTheTensorPipeAndSmSharesOnAmpereAdaHopperAndBlackwell) {
  for (const char* chip : {"GA100", "GA102", "AD102", "GH100", "GB100", "GB202"}) {
    const std::vector<std::string> metrics = choose(CounterProfiler::kPmSampling, chip);
    if (!skipped_.empty()) GTEST_SKIP() << skipped_;
    EXPECT_EQ(metrics, (std::vector<std::string>{kTensorShare, kSmShare})) << chip;
  }
}

// Turing's tensor pipe counter alone takes two passes, which PM sampling cannot make.
TEST_F(RealChipMetricsTest, PmSamplingOnTuringHasOnlyTheSmShare) {
  const std::vector<std::string> metrics = choose(CounterProfiler::kPmSampling, "TU102");
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  EXPECT_EQ(metrics, (std::vector<std::string>{kSmShare}));
}

TEST_F(RealChipMetricsTest, RangeProfilerRecordsTheTensorPipeWithItsCyclesInOnePass) {
  for (const char* chip : {"GA100", "GH100", "GB100"}) {
    const std::vector<std::string> metrics = choose(CounterProfiler::kRangeProfiler, chip);
    if (!skipped_.empty()) GTEST_SKIP() << skipped_;
    ASSERT_GE(metrics.size(), 3u) << chip;
    EXPECT_EQ(metrics[0], kTensorShare) << chip;
    EXPECT_EQ(metrics[1], "sm__cycles_active.avg") << chip;
    EXPECT_EQ(metrics[2], "sm__cycles_elapsed.avg") << chip;
    EXPECT_EQ(metrics.size(), 4u) << chip;  // the HMMA share and GMMA count would take a second pass
    std::size_t passes = 0;
    ASSERT_TRUE(api_.passes(CounterProfiler::kRangeProfiler, chip, {}, metrics, &passes).ok());
    EXPECT_EQ(passes, 1u) << chip;
  }
}

TEST_F(RealChipMetricsTest, RangeProfilerKeepsTheHmmaShareWhereItFitsThePass) {
  const std::vector<std::string> metrics = choose(CounterProfiler::kRangeProfiler, "GA102");
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_EQ(metrics.size(), 5u);
  EXPECT_EQ(metrics[4], "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed");
}

TEST_F(RealChipMetricsTest, VoltaHasNoPmSampling) {
  std::vector<std::string> names;
  const CounterCall call = api_.baseMetrics(CounterProfiler::kPmSampling, "GV100", {}, &names);
  EXPECT_FALSE(call.ok());
}

}  // namespace
}  // namespace ampscope::collector
