#include "analyzer/advice/recommendations.h"

#include <gtest/gtest.h>

#include <set>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "tests/analyzer/imported_trace.h"
#include "tests/analyzer/trainer_cpu_trace.h"

namespace ampscope::analyzer {
namespace {

std::vector<Recommendation> recommendationsFor(const std::string& path) {
  auto imported = import::importTrace(path);
  EXPECT_TRUE(imported.ok());
  const CorrelationCounts counts = correlate(*imported);
  return recommend(summarizeTrace(*imported, counts));
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
    rgb_input_flagged |= r.rule == "pad-dimensions" && r.target == "size 3" && r.ops.size() == 1 &&
                         r.ops[0].ends_with("as input channels") && r.action.starts_with("Pad 3 to 8 ");
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
    if (r.rule == "pad-dimensions" && r.target == "size 9375") pad = &r;
  }
  ASSERT_NE(pad, nullptr);
  EXPECT_TRUE(pad->action.starts_with("Pad 9375 to 9376 (a multiple of 4; for TF32)")) << pad->action;
  EXPECT_NE(pad->evidence.find("align1"), std::string::npos);
  EXPECT_GT(pad->estimated_gain_ns, 0) << pad->evidence;
}

// Findings by cause: a size is padded once, in the model's configuration, so each misaligned size
// is one finding listing every op call shape it is a GEMM dimension of, with their summed gain.
TEST(RecommendationsTest, A100TraceGetsOnePaddingFindingPerSize) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const std::vector<Recommendation> all = recommendationsFor(path);
  std::set<std::string> sizes;
  std::size_t findings = 0;
  std::size_t ops = 0;
  for (const Recommendation& r : all) {
    if (r.rule != "pad-dimensions") continue;
    ++findings;
    ops += r.ops.size();
    EXPECT_TRUE(r.target.starts_with("size ")) << r.target;
    EXPECT_TRUE(sizes.insert(r.target).second) << "two findings for " << r.target;
    EXPECT_FALSE(r.ops.empty()) << r.target;
  }
  EXPECT_GE(findings, 5u);
  EXPECT_GT(ops, findings);  // sizes shared by several op call shapes are listed once
  for (const Recommendation& r : all) {
    if (r.target != "size 9375") continue;
    // 9375 is K, N or M of six op call shapes (addmm and mm in both passes).
    EXPECT_EQ(r.ops.size(), 6u);
    EXPECT_NE(r.evidence.find("6 op call shapes"), std::string::npos) << r.evidence;
  }
  // 15 is a dimension of TF32 calls (which want 4) and of FP32 ones (8 once AMP is on): 16 serves both.
  for (const Recommendation& r : all) {
    if (r.target == "size 15") {
      EXPECT_TRUE(r.action.starts_with("Pad 15 to 16 (a multiple of 8; its ops want 4 for TF32, 8 for FP16/BF16 once AMP is on)"))
          << r.action;
    }
  }
}

TraceSummary stalledSummary() {
  TraceSummary s;
  s.iterations.iterations = {{0, 0, 100'000'000, false, 0, 100'000'000}, {1, 100'000'000, 200'000'000, false, 100'000'000, 200'000'000}};
  s.iterations.steady_mean_ns = 100'000'000;
  s.amdahl.parts = {{StepPartKind::kIdle, 40'000'000, 0.4, 1.0}};
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
  AmpNumerics& n = s.amp_numerics;
  n.counted_steps = 100;
  n.skipped_steps = 12;
  n.skipped = {{10, 20}, {40, 40}};
  n.loss_scale_samples = 100;
  n.loss_scale_min = 1.0;
  n.loss_scale_max = 65536.0;
  n.loss_scale_final = 1.0;
  const std::vector<Recommendation> all = recommend(s);
  const Recommendation* overflows = find(all, "loss-scale-overflows");
  ASSERT_NE(overflows, nullptr);
  EXPECT_NE(overflows->evidence.find("12 of 100 steps"), std::string::npos);
  EXPECT_NE(overflows->evidence.find("steps 10-20, 40"), std::string::npos);
  EXPECT_NE(find(all, "loss-scale-at-floor"), nullptr);
  n.skipped_steps = 2;  // a few skips while the scale finds its level are healthy
  n.loss_scale_final = 32768;
  const std::vector<Recommendation> healthy = recommend(s);
  EXPECT_EQ(find(healthy, "loss-scale-overflows"), nullptr);
  EXPECT_EQ(find(healthy, "loss-scale-at-floor"), nullptr);
}

TEST(RecommendationsTest, AScaleThatStaysAtOneIsNoScalingNotAFall) {
  // FP32 and BF16 runs record a loss scale of 1 at every step.
  TraceSummary s;
  s.amp_numerics.loss_scale_samples = 50;
  s.amp_numerics.loss_scale_min = s.amp_numerics.loss_scale_max = s.amp_numerics.loss_scale_final = 1.0;
  EXPECT_EQ(find(recommend(s), "loss-scale-at-floor"), nullptr);
}

TraceSummary underflowingSummary(std::vector<std::string> dtypes) {
  TraceSummary s;
  AmpNumerics& n = s.amp_numerics;
  n.recorded = true;
  n.recent_steps = 10;
  n.compute_dtypes = std::move(dtypes);
  n.loss_scale_samples = 100;
  n.loss_scale_min = n.loss_scale_max = n.loss_scale_final = 1.0;
  n.suggested_loss_scale = 1024;
  TensorNumerics t;
  t.tensor = "fc1.weight";
  t.all = {10'000, 100, 300, 0};     // 3% underflow
  t.recent = {1'000, 10, 80, 0};     // 8% in the last steps
  t.has_bins = true;
  t.underflow_share_at_suggested_scale = 0.001;
  TensorNumerics fine;
  fine.tensor = "fc2.weight";
  fine.all = {10'000, 0, 10, 0};     // 0.1%
  n.tensors = {t, fine};
  return s;
}

TEST(RecommendationsTest, GradientsLostToFp16UnderflowGetALossScaleToUse) {
  const std::vector<Recommendation> all = recommend(underflowingSummary({"float16"}));
  const Recommendation* underflow = find(all, "gradient-underflow");
  ASSERT_NE(underflow, nullptr);
  EXPECT_EQ(underflow->target, "loss scaler");
  EXPECT_NE(underflow->evidence.find("fc1.weight 3.00% (the last 10 steps: 8.00%)"), std::string::npos) << underflow->evidence;
  EXPECT_EQ(underflow->evidence.find("fc2.weight"), std::string::npos);  // under the 1% threshold
  EXPECT_NE(underflow->evidence.find("at a scale of 1024"), std::string::npos);
  // The scale never left 1: loss scaling is off, so the advice is to turn it on.
  EXPECT_NE(underflow->action.find("--loss-scale dynamic"), std::string::npos);
  EXPECT_NE(underflow->action.find("1024"), std::string::npos);
}

TEST(RecommendationsTest, BFloat16RunsLoseNoGradientsToFp16Underflow) {
  EXPECT_EQ(find(recommend(underflowingSummary({"bfloat16"})), "gradient-underflow"), nullptr);
  // amp-bf16 keeps flatten and the loss in FP32.
  EXPECT_EQ(find(recommend(underflowingSummary({"float32", "bfloat16"})), "gradient-underflow"), nullptr);
  // An FP32 run is warned: the same values would be lost once it computes in FP16.
  // The findings are kept in a variable: a pointer into the temporary returned by recommend()
  // dangled (heap-use-after-free under scripts/sanitize.sh).
  const std::vector<Recommendation> fp32_findings = recommend(underflowingSummary({"float32"}));
  const Recommendation* fp32 = find(fp32_findings, "gradient-underflow");
  ASSERT_NE(fp32, nullptr);
  EXPECT_NE(fp32->evidence.find("would round to zero"), std::string::npos);
}

TEST(RecommendationsTest, CpuProfilesGetNoTensorCoreAdviceButKeepShapeAndPipelineAdvice) {
  trace::Trace trace = test::trainerCpuTrace();
  const CorrelationCounts counts = test::correlateAsImported(trace);
  const std::vector<Recommendation> all = recommend(summarizeTrace(trace, counts));
  for (const char* rule : {"enable-amp", "enable-tf32", "tf32-to-half-precision", "batch-too-small", "launch-bound",
                           "host-bound"}) {
    EXPECT_EQ(find(all, rule), nullptr) << rule;
  }
  const Recommendation* pad = find(all, "pad-dimensions");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->target, "size 100");
  ASSERT_FALSE(pad->ops.empty());
  EXPECT_TRUE(pad->ops[0].starts_with("fc1 linear")) << pad->ops[0];
  EXPECT_EQ(pad->estimated_gain_ns, 0);  // host time says nothing of a GPU's Tensor Core kernels
  EXPECT_NE(pad->evidence.find("recorded on the CPU"), std::string::npos);
  const Recommendation* pipeline = find(all, "hide-input-pipeline");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_NE(pipeline->evidence.find("the CPU backend runs no op"), std::string::npos);
  EXPECT_EQ(pipeline->estimated_gain_ns, 2'000'000);
  EXPECT_NE(find(all, "gradient-underflow"), nullptr);
  EXPECT_NE(find(all, "loss-scale-overflows"), nullptr);  // 1 of 6 steps
  for (const Recommendation& r : all) {
    EXPECT_EQ(r.evidence.find("Tensor Core rate"), std::string::npos) << r.rule;
  }
}

TEST(RecommendationsTest, EmptySummaryRecommendsNothing) {
  EXPECT_TRUE(recommend(TraceSummary{}).empty());
}

// A call whose recorded shapes would have run faster than the device can is not a measurement of
// it (a convolution's stride is not in its GEMM dimensions): no padding gain may rest on it, and an
// aligned call like it may not set the bar for the others.
TEST(RecommendationsTest, PaddingGainIsNotEstimatedFromARateAboveTheDevicesPeak) {
  TraceSummary s;
  s.iterations.iterations = {{0, 0, 10'000'000, false, 0, 10'000'000}};
  s.iterations.steady_mean_ns = 10'000'000;
  s.amdahl.device = *findDevice("V100 SXM2");
  const auto check = [](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t ns) {
    ShapeCheck c;
    c.op = "aten::mm";
    c.shapes = "[[" + std::to_string(m) + "," + std::to_string(k) + "]]";
    c.dims = {m, n, k, 1, false, 0, std::nullopt};
    c.calls = 1;
    c.gpu_time_ns = ns;
    c.precision = MathPrecision::kFp32Simt;
    c.misaligned = misalignedDimensions(c.dims, 8);
    return c;
  };
  s.shape_checks = {check(4096, 4096, 4096, 1'000),      // aligned, 137 PFLOP/s: impossible
                    check(1023, 1024, 1024, 1'000'000),  // misaligned, 2.1 TFLOP/s
                    check(4095, 4096, 4096, 1'000)};     // misaligned, impossible
  const std::vector<Recommendation> all = recommend(s);
  int padding = 0;
  for (const Recommendation& r : all) {
    if (r.rule != "pad-dimensions") continue;
    ++padding;
    EXPECT_EQ(r.estimated_gain_ns, 0) << r.evidence;
    EXPECT_EQ(r.evidence.find("aligned aten::mm calls in this trace run at"), std::string::npos) << r.evidence;
  }
  EXPECT_EQ(padding, 2);
  bool flagged = false;
  for (const Recommendation& r : all) flagged |= r.evidence.find("above V100 SXM2's peak in FP32-SIMT") != std::string::npos;
  EXPECT_TRUE(flagged);
}

}  // namespace
}  // namespace ampscope::analyzer

namespace ampscope::analyzer {
namespace {

// A summary whose AMP memory projection lets batch 32 grow from 40 to 72 on an 80 GiB GPU, with a
// measured time finding beside it (exposed data loading).
TraceSummary summaryWithMemoryHeadroom() {
  TraceSummary s;
  s.iterations.iterations = {{0, 0, 10'000'000, false, 0, 10'000'000}};
  s.iterations.steady_mean_ns = 10'000'000;
  s.data_pipeline.exposed_ns_per_iteration = 2'000'000;
  s.data_pipeline.exposed_fraction = 0.2;
  s.data_pipeline.speedup_if_hidden = 1.25;
  AmpMemoryProjection& amp = s.memory.amp;
  amp.applies = true;
  amp.measured_peak_allocated_bytes = 64LL << 30;
  amp.projected_peak_allocated_bytes = 38LL << 30;
  amp.batch = 32;
  amp.fit_capacity_bytes = 80ULL << 30;
  amp.fit_device = "H100 SXM";
  amp.batch_that_fits = 40;
  amp.amp_batch_that_fits = 72;
  return s;
}

TEST(RecommendationsTest, AmpsMemoryHeadroomSaysWhichBatchFitsWhereAndClaimsNoTime) {
  const std::vector<Recommendation> all = recommend(summaryWithMemoryHeadroom());
  const Recommendation* headroom = find(all, "memory-headroom");
  ASSERT_NE(headroom, nullptr);
  EXPECT_NE(headroom->action.find("a batch of up to 72 on H100 SXM (up to 40 now)"), std::string::npos) << headroom->action;
  EXPECT_NE(headroom->evidence.find("projected peak is 38.00 GiB"), std::string::npos) << headroom->evidence;
  EXPECT_NE(headroom->evidence.find("80.00 GiB"), std::string::npos) << headroom->evidence;
  // Memory is not step time: a note, after the measured time finding, never above it.
  EXPECT_EQ(headroom->estimated_gain_ns, 0);
  EXPECT_EQ(headroom->severity, Severity::kInfo);
  EXPECT_TRUE(isNote(*headroom));
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().rule, "hide-input-pipeline");
}

TEST(RecommendationsTest, NoMemoryHeadroomWhereAmpFitsNoLargerBatchOrTheFitIsUnknown) {
  TraceSummary same = summaryWithMemoryHeadroom();
  same.memory.amp.amp_batch_that_fits = 40;
  EXPECT_EQ(find(recommend(same), "memory-headroom"), nullptr);
  TraceSummary unknown = summaryWithMemoryHeadroom();
  unknown.memory.amp.batch_that_fits.reset();
  unknown.memory.amp.amp_batch_that_fits.reset();
  EXPECT_EQ(find(recommend(unknown), "memory-headroom"), nullptr);
  TraceSummary already_half = summaryWithMemoryHeadroom();
  already_half.memory.amp.applies = false;
  already_half.memory.amp.note = "the run already uses half precision";
  EXPECT_EQ(find(recommend(already_half), "memory-headroom"), nullptr);
}

}  // namespace
}  // namespace ampscope::analyzer
