#include "analyzer/steps/amp_numerics.h"

#include <gtest/gtest.h>

#include "analyzer/correlate/correlator.h"
#include "tests/analyzer/imported_trace.h"
#include "tests/analyzer/trainer_cpu_trace.h"

namespace ampscope::analyzer {
namespace {

class AmpNumericsTest : public ::testing::Test {
 protected:
  void counter(const char* name, std::int64_t step, double value) {
    trace::Counter c;
    c.name = trace_.strings.intern(name);
    c.step = step;
    c.time_ns = step * 1000;
    c.value = value;
    trace_.counters.push_back(c);
  }
  trace::Trace trace_;
};

TEST_F(AmpNumericsTest, LossScaleHistoryKeepsOnlyItsChanges) {
  const double scales[] = {65536, 65536, 32768, 32768, 32768, 65536, 16384};
  for (std::int64_t step = 0; step < 7; ++step) counter("loss_scale", step, scales[step]);
  const AmpNumerics n = measureAmpNumerics(trace_);
  ASSERT_EQ(n.loss_scale_changes.size(), 4u);
  EXPECT_EQ(n.loss_scale_changes[1].step, 2);
  EXPECT_EQ(n.loss_scale_changes[1].value, 32768);
  EXPECT_EQ(n.loss_scale_changes[3].step, 6);
  EXPECT_EQ(n.loss_scale_min, 16384);
  EXPECT_EQ(n.loss_scale_max, 65536);
  EXPECT_EQ(n.loss_scale_final, 16384);
  EXPECT_EQ(formatLossScaleHistory(n.loss_scale_changes, 2),
            "65536 at step 0, 32768 at step 2, ... (2 more changes)");
}

TEST_F(AmpNumericsTest, SkippedStepsAreListedAsRunsOfConsecutiveSteps) {
  for (std::int64_t step = 0; step < 30; ++step) {
    const bool skipped = step == 3 || (step >= 17 && step <= 19) || step == 25;
    counter("skipped_step", step, skipped ? 1.0 : 0.0);
  }
  const AmpNumerics n = measureAmpNumerics(trace_);
  EXPECT_EQ(n.counted_steps, 30u);
  EXPECT_EQ(n.skipped_steps, 5u);
  EXPECT_EQ(formatStepRuns(n.skipped), "3, 17-19, 25");
  EXPECT_EQ(formatStepRuns(n.skipped, 2), "3, 17-19, ... (1 more)");
}

TEST_F(AmpNumericsTest, TheRecentWindowIsOverTheStepsThatHaveHistograms) {
  // Counters every step, histograms every 10th (train --numerics-every 10): the last tenth of the
  // 100 steps (90-99) holds one histogram step, the last tenth of the 10 histogram steps is 90.
  for (std::int64_t step = 0; step < 100; ++step) {
    counter("loss_scale", step, 65536);
    if (step % 10 != 0) continue;
    counter("gradient_values/fc.weight", step, 1000);
    counter("gradient_underflow/fc.weight", step, step == 90 ? 40 : 0);
  }
  const AmpNumerics n = measureAmpNumerics(trace_);
  EXPECT_EQ(n.steps, 100u);
  EXPECT_EQ(n.histogram_steps, 10u);
  EXPECT_EQ(n.recent_from_step, 90);
  EXPECT_EQ(n.recent_steps, 1u);
  ASSERT_EQ(n.tensors.size(), 1u);
  EXPECT_EQ(n.tensors[0].recent.values, 1000u);
  EXPECT_DOUBLE_EQ(n.tensors[0].recent.underflowShare(), 0.04);
  EXPECT_EQ(recentStepsText(n), "the last of the 10 steps with histograms");
}

TEST_F(AmpNumericsTest, UnderflowAndZeroSharesOverAllStepsAndTheLastTenth) {
  // 20 steps: the last tenth is steps 18 and 19.
  for (std::int64_t step = 0; step < 20; ++step) {
    counter("gradient_values/fc.weight", step, 1000);
    counter("gradient_zeros/fc.weight", step, step >= 18 ? 100 : 10);
    counter("gradient_underflow/fc.weight", step, step >= 18 ? 50 : 0);
    counter("loss", step, 3.0 - 0.1 * static_cast<double>(step));
  }
  const AmpNumerics n = measureAmpNumerics(trace_);
  EXPECT_TRUE(n.recorded);
  EXPECT_EQ(n.steps, 20u);
  EXPECT_EQ(n.recent_from_step, 18);
  EXPECT_EQ(n.recent_steps, 2u);
  ASSERT_EQ(n.tensors.size(), 1u);
  const TensorNumerics& t = n.tensors[0];
  EXPECT_EQ(t.tensor, "fc.weight");
  EXPECT_EQ(t.all.values, 20'000u);
  EXPECT_DOUBLE_EQ(t.all.underflowShare(), 100.0 / 20'000);
  EXPECT_DOUBLE_EQ(t.recent.underflowShare(), 100.0 / 2'000);
  EXPECT_DOUBLE_EQ(t.all.zeroShare(), (18 * 10 + 2 * 100) / 20'000.0);
  EXPECT_DOUBLE_EQ(t.recent.zeroShare(), 200.0 / 2'000);
  EXPECT_TRUE(n.has_loss);
  EXPECT_DOUBLE_EQ(n.loss_first, 3.0);
  EXPECT_EQ(n.loss_last_step, 19);
  EXPECT_FALSE(t.has_bins);
  EXPECT_EQ(n.suggested_loss_scale, 0.0);
}

TEST_F(AmpNumericsTest, ATraceWithoutTheTrainersCountersHasNoNumerics) {
  counter("gpu_temperature", 0, 60);
  const AmpNumerics n = measureAmpNumerics(trace_);
  EXPECT_FALSE(n.recorded);
  EXPECT_TRUE(n.tensors.empty());
}

TEST(AmpNumericsTrainerTest, BinsGiveTheHeadroomAndTheUnderflowAtThatScale) {
  trace::Trace trace = test::trainerCpuTrace();
  test::correlateAsImported(trace);
  const AmpNumerics n = measureAmpNumerics(trace);
  // The largest bin is fc2.weight's 2^-3: scaled by 2^17 it stays below 2^15.
  EXPECT_EQ(n.suggested_loss_scale, 131072.0);
  ASSERT_EQ(n.tensors.size(), 2u);
  const TensorNumerics& fc1 = n.tensors[0];  // the larger underflow share first
  EXPECT_EQ(fc1.tensor, "fc1.weight");
  EXPECT_TRUE(fc1.has_bins);
  EXPECT_EQ(fc1.smallest_exponent, -45);
  EXPECT_EQ(fc1.largest_exponent, -5);
  // Its 2^-45 bin still rounds to zero at 2^17 (2^-44 x 2^17 = 2^-27 <= 2^-25).
  EXPECT_NEAR(fc1.underflow_share_at_suggested_scale, 1568.0 / 77'400, 1e-12);
  EXPECT_EQ(n.tensors[1].underflow_share_at_suggested_scale, 0.0);
  EXPECT_EQ(n.compute_dtypes, (std::vector<std::string>{"float16"}));
  EXPECT_EQ(n.loss_scale_changes.size(), 2u);
  EXPECT_EQ(n.loss_scale_changes[1].step, 4);
  EXPECT_EQ(formatStepRuns(n.skipped), "3");
  EXPECT_EQ(fc1.all.non_finite, 5u);
}

}  // namespace
}  // namespace ampscope::analyzer
