#include "collector/hardware_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ampscope::collector {
namespace {

TEST(MetricsModeTest, ReadsTheValuesOfMetricsAndNamesThemBack) {
  for (const char* text : {"none", "tensor", "tensor:per-kernel"}) {
    auto mode = parseMetricsMode(text);
    ASSERT_TRUE(mode) << text;
    EXPECT_STREQ(metricsModeName(*mode), text);
  }
  EXPECT_EQ(*parseMetricsMode(""), MetricsMode::kNone);
  EXPECT_EQ(*parseMetricsMode("tensor"), MetricsMode::kSampled);
  EXPECT_EQ(*parseMetricsMode("tensor:per-kernel"), MetricsMode::kPerKernel);
}

TEST(MetricsModeTest, AnUnknownValueIsRefusedWithTheChoices) {
  for (const char* text : {"tensors", "Tensor", "tensor:per_kernel", "per-kernel", "tensor,"}) {
    auto mode = parseMetricsMode(text);
    ASSERT_FALSE(mode) << text;
    EXPECT_NE(mode.error().message.find(std::string("'") + text + "'"), std::string::npos) << mode.error().message;
    EXPECT_NE(mode.error().message.find("tensor:per-kernel"), std::string::npos);
  }
}

// A pass rule of at most `per_pass` metrics a pass.
PassCount passesOf(std::size_t per_pass) {
  return [per_pass](const std::vector<std::string>& metrics) -> trace::Result<std::size_t> {
    return (metrics.size() + per_pass - 1) / per_pass;
  };
}

TEST(MetricChoiceTest, TakesTheCandidatesTheChipOffersInOrder) {
  const MetricChoice choice =
      chooseMetrics(CounterProfiler::kPmSampling, {"sm__cycles_active", "sm__pipe_tensor_cycles_active", "dram__bytes"},
                    passesOf(8));
  EXPECT_EQ(choice.metrics, (std::vector<std::string>{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                                                      "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}));
  EXPECT_TRUE(choice.left_out.empty());
}

TEST(MetricChoiceTest, LeavesOutWhatTheChipLacksOrWhatWouldNeedASecondPassAndSaysWhy) {
  const MetricChoice choice = chooseMetrics(
      CounterProfiler::kRangeProfiler,
      {"sm__pipe_tensor_cycles_active", "sm__cycles_active", "sm__cycles_elapsed", "sm__inst_executed_pipe_tensor"},
      passesOf(3));
  EXPECT_EQ(choice.metrics, (std::vector<std::string>{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                                                      "sm__cycles_active.avg", "sm__cycles_elapsed.avg"}));
  ASSERT_EQ(choice.left_out.size(), 3u);
  EXPECT_EQ(choice.left_out[0], "sm__inst_executed_pipe_tensor.sum (it would need a second pass)");
  EXPECT_EQ(choice.left_out[1],
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed (the chip has no "
            "sm__pipe_tensor_op_hmma_cycles_active)");
}

TEST(MetricChoiceTest, APassCountCuptiCannotGiveLeavesThatMetricOutWithItsWords) {
  const MetricChoice choice =
      chooseMetrics(CounterProfiler::kPmSampling, {"sm__cycles_active", "sm__pipe_tensor_cycles_active"},
                    [](const std::vector<std::string>& metrics) -> trace::Result<std::size_t> {
                      if (metrics.back().rfind("sm__pipe_tensor", 0) == 0) return trace::Error{"CUPTI_ERROR_INVALID_METRIC_NAME"};
                      return std::size_t{1};
                    });
  EXPECT_EQ(choice.metrics, (std::vector<std::string>{"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}));
  ASSERT_EQ(choice.left_out.size(), 1u);
  EXPECT_NE(choice.left_out[0].find("CUPTI_ERROR_INVALID_METRIC_NAME"), std::string::npos);
}

TEST(MetricChoiceTest, EveryCandidateNamesAMetricOfItsBase) {
  for (CounterProfiler profiler : {CounterProfiler::kPmSampling, CounterProfiler::kRangeProfiler}) {
    for (const MetricCandidate& candidate : metricCandidates(profiler)) {
      EXPECT_EQ(candidate.metric.rfind(std::string(candidate.base) + ".", 0), 0u) << candidate.metric;
    }
  }
}

TEST(HardwareCounterNoteTest, ThePrivilegeNoteSaysHowToAllowProfiling) {
  EXPECT_EQ(std::string(kPrivilegeNote).rfind("hardware counters: ", 0), 0u);
  EXPECT_NE(std::string(kPrivilegeNote).find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_EQ(hardwareCounterNote("why"), "hardware counters: why");
}

}  // namespace
}  // namespace ampscope::collector
