#include "analyzer/recommendations.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {
namespace {

std::vector<Recommendation> recommendationsFor(const std::string& path) {
  auto imported = import::importTrace(path);
  EXPECT_TRUE(imported.ok());
  const CorrelationCounts counts = correlate(*imported);
  return recommend(summarizeTrace(*imported, counts, 50));
}

const Recommendation* find(const std::vector<Recommendation>& all, std::string_view rule) {
  for (const Recommendation& r : all) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

TEST(RecommendationsTest, WorkersZeroGetsAmpAndPipelineAdviceSortedByGain) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  const std::vector<Recommendation> all = recommendationsFor(path);
  ASSERT_GE(all.size(), 2u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].estimated_gain_ns, all[i].estimated_gain_ns);
  const Recommendation* pipeline = find(all, "hide-input-pipeline");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_EQ(pipeline->severity, Severity::kHigh);
  EXPECT_GT(pipeline->estimated_gain_pct, 25.0);
  EXPECT_NE(pipeline->action.find("num_workers"), std::string::npos);
  const Recommendation* amp = find(all, "enable-amp");
  ASSERT_NE(amp, nullptr);
  // A V100 has FP16 Tensor Cores only: the advice is float16 with loss scaling.
  EXPECT_NE(amp->action.find("float16"), std::string::npos);
  EXPECT_NE(amp->action.find("GradScaler"), std::string::npos);
  // The exposed loading is the largest reachable gain. AMP would speed up the GPU work 1.7x on
  // peak figures, but the host issues that work no faster than the GPU runs it, so the replay
  // leaves AMP little and the host-bound advice comes with it.
  EXPECT_EQ(all[0].rule, "hide-input-pipeline");
  EXPECT_LT(amp->estimated_gain_pct, 10.0);
  EXPECT_NE(amp->evidence.find("replayed"), std::string::npos);
  EXPECT_NE(find(all, "host-bound"), nullptr);
  // The first convolution's 3 input channels are off the multiple of 8 AMP will want.
  bool rgb_input_flagged = false;
  for (const Recommendation& r : all) {
    rgb_input_flagged |= r.rule == "pad-dimensions" && r.evidence.find("input channels 3 -> 8") != std::string::npos;
  }
  EXPECT_TRUE(rgb_input_flagged);
}

TEST(RecommendationsTest, WorkersFourGetsNoPipelineAdvice) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  const std::vector<Recommendation> all = recommendationsFor(path);
  EXPECT_EQ(find(all, "hide-input-pipeline"), nullptr);
  EXPECT_NE(find(all, "enable-amp"), nullptr);
  // With the loading hidden, the host's pace is what holds the step: 30 ms per step of GPU idle
  // outside data loading while the host issues kernels.
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].rule, "host-bound");
}

TEST(RecommendationsTest, A100Tf32ModelGetsHalfPrecisionAndPaddingAdvice) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const std::vector<Recommendation> all = recommendationsFor(path);
  EXPECT_NE(find(all, "tf32-to-half-precision"), nullptr);
  const Recommendation* pad = nullptr;
  for (const Recommendation& r : all) {
    if (r.rule == "pad-dimensions" && r.evidence.find("9375 -> 9376") != std::string::npos) pad = &r;
  }
  ASSERT_NE(pad, nullptr);
  EXPECT_NE(pad->evidence.find("align1"), std::string::npos);
  EXPECT_GT(pad->estimated_gain_ns, 0);
}

TraceSummary stalledSummary() {
  TraceSummary s;
  s.iterations.iterations = {{0, 0, 100'000'000, false}, {1, 100'000'000, 200'000'000, false}};
  s.iterations.steady_mean_ns = 100'000'000;
  s.amdahl.parts = {{"GPU idle: host, data loading, launch gaps", 40'000'000, 0.4, 1.0}};
  s.host_stalls.sync_ns_per_iteration = 10'000'000;
  s.host_stalls.sync_calls_per_iteration = 3;
  s.host_stalls.matrix_kernels = 100;
  s.host_stalls.matrix_blocks_per_sm = 0.4;
  return s;
}

TEST(RecommendationsTest, BlockingCallsAndSmallMatrixKernelsAreReported) {
  const std::vector<Recommendation> all = recommend(stalledSummary());
  const Recommendation* sync = find(all, "synchronous-calls");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->estimated_gain_ns, 5'000'000);
  EXPECT_NE(sync->evidence.find("10.000 ms"), std::string::npos);
  const Recommendation* batch = find(all, "batch-too-small");
  ASSERT_NE(batch, nullptr);
  EXPECT_NE(batch->evidence.find("0.40 thread blocks per SM"), std::string::npos);
}

TEST(RecommendationsTest, LossScaleTroubleIsReportedFromTheTrainersCounters) {
  TraceSummary s = stalledSummary();
  s.host_stalls.counted_steps = 100;
  s.host_stalls.skipped_steps = 12;
  s.host_stalls.loss_scale_samples = 100;
  s.host_stalls.loss_scale_min = 1.0;
  s.host_stalls.loss_scale_last = 1.0;
  const std::vector<Recommendation> all = recommend(s);
  const Recommendation* overflows = find(all, "loss-scale-overflows");
  ASSERT_NE(overflows, nullptr);
  EXPECT_NE(overflows->evidence.find("12 of 100 steps"), std::string::npos);
  EXPECT_NE(find(all, "loss-scale-at-floor"), nullptr);
  s.host_stalls.skipped_steps = 2;  // a few skips while the scale finds its level are healthy
  s.host_stalls.loss_scale_last = 32768;
  const std::vector<Recommendation> healthy = recommend(s);
  EXPECT_EQ(find(healthy, "loss-scale-overflows"), nullptr);
  EXPECT_EQ(find(healthy, "loss-scale-at-floor"), nullptr);
}

TEST(RecommendationsTest, EmptySummaryRecommendsNothing) {
  EXPECT_TRUE(recommend(TraceSummary{}).empty());
}

}  // namespace
}  // namespace ampscope::analyzer
