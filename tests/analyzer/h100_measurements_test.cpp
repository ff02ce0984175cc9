// The analyzer against what was measured on an H100 (tests/data/h100/SOURCES.md): the time model's
// GEMM times and AMP speedups against timed torch.mm calls, and the step times and projections of
// PyTorch profiler traces against the same model's unprofiled steps.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analyzer/launch_queue.h"
#include "analyzer/op_performance.h"
#include "analyzer/op_time_model.h"
#include "analyzer/recommendations.h"
#include "analyzer/run_analysis.h"
#include "tests/test_support.h"

namespace ampscope::analyzer {
namespace {

nlohmann::json readJson(const std::string& relative) {
  std::ifstream in(test::testData(relative));
  EXPECT_TRUE(in.good()) << relative;
  return nlohmann::json::parse(in);
}

const DeviceSpec& h100() {
  const DeviceSpec* spec = findDevice("H100 SXM");
  EXPECT_NE(spec, nullptr);
  return *spec;
}

// `leading`: which dimensions lead, where the layout is taken as known.
double predictedMs(MathPrecision precision, std::int64_t m, std::int64_t n, std::int64_t k, int element,
                   std::optional<LeadingDims> leading = std::nullopt) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.leading = leading;
  const double mm = static_cast<double>(m), nn = static_cast<double>(n), kk = static_cast<double>(k);
  const auto t = estimateMatrixTime(h100(), precision, d, 2.0 * mm * nn * kk, element * (mm * kk + kk * nn + mm * nn), 1);
  EXPECT_TRUE(t.has_value());
  return t ? t->ns / 1e6 : 0.0;
}

// The median step time measured for one configuration of the LM (lm_timings.json).
double measuredStepMs(const std::string& precision, bool tf32, int vocab = 50257) {
  const nlohmann::json timings = readJson("h100/lm_timings.json");
  for (const auto& row : timings.at("timings")) {
    if (row.at("precision") == precision && row.at("tf32") == tf32 && row.at("vocab") == vocab) return row.at("median_ms");
  }
  ADD_FAILURE() << "no timing for " << precision;
  return 0;
}

RunAnalysis analyzed(const std::string& name) {
  auto run = analyzeFile(test::testData("h100/" + name));
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
  return std::move(*run);
}

// torch.mm of contiguous operands, [M, K] x [K, N]: rows of K and of N, and a result of rows of N.
constexpr LeadingDims kContiguousMm{false, true, true};

// Single torch.mm calls of contiguous operands (extra_timings.json), those long enough that the
// ~35 us of Python launching each one does not count. A shape whose only dimension off the
// multiple is M, the rows of A, leads nowhere: cuBLAS runs it on the aligned kernels. Told the
// layout, the model must say so; not told it, it must assume the narrow kernels.
TEST(H100MeasurementsTest, AGemmWhoseOnlyDimensionOffTheMultipleIsNoLeadingOneTakesTheAlignedTime) {
  const nlohmann::json timings = readJson("h100/extra_timings.json");
  ASSERT_EQ(timings.at("device"), "NVIDIA H100 80GB HBM3");
  int long_calls = 0;
  bool saw_rows_off_the_multiple = false;
  for (const auto& row : timings.at("gemms")) {
    const std::int64_t m = row.at("m"), n = row.at("n"), k = row.at("k");
    const double bf16 = row.at("bf16_ms");
    if (bf16 < 0.15) continue;
    ++long_calls;
    const std::string shape = fmt::format("{}x{}x{}", m, n, k);
    const double model = predictedMs(MathPrecision::kBf16, m, n, k, 2, kContiguousMm);
    EXPECT_GT(model / bf16, 0.75) << shape << ": model " << model << " ms, measured " << bf16;
    EXPECT_LT(model / bf16, 1.3) << shape << ": model " << model << " ms, measured " << bf16;
    if (m % 8 != 0 && n % 8 == 0 && k % 8 == 0) {
      saw_rows_off_the_multiple = true;
      EXPECT_GT(predictedMs(MathPrecision::kBf16, m, n, k, 2) / bf16, 2.0) << shape << ": layout unknown";
    }
  }
  EXPECT_TRUE(saw_rows_off_the_multiple);
  EXPECT_GE(long_calls, 6);
}

// GEMM kernels timed back to back in a CUDA graph (graph_gemm_timings.json). Over 20 us in BF16
// they are compute-bound, and the model's times and AMP speedups must be near; below, the steps
// over K, the kernel's fixed cost and L2 (a replayed graph finds its operands there) decide, and
// the model must not claim much more gain than was measured. The operands are contiguous, as the
// model is told.
TEST(H100MeasurementsTest, TheTimeModelsGemmTimesAndAmpSpeedupsAreNearGemmKernelsTimedOnAnH100) {
  const nlohmann::json timings = readJson("h100/graph_gemm_timings.json");
  ASSERT_EQ(timings.at("device"), "NVIDIA H100 80GB HBM3");
  int compute_bound = 0;
  int small = 0;
  for (const auto& row : timings.at("gemms")) {
    const std::int64_t m = row.at("m"), n = row.at("n"), k = row.at("k");
    const double fp32 = row.at("fp32_ms"), tf32 = row.at("tf32_ms"), bf16 = row.at("bf16_ms");
    const std::string shape = fmt::format("{}x{}x{}", m, n, k);
    const double model_fp32 = predictedMs(MathPrecision::kFp32Simt, m, n, k, 4, kContiguousMm);
    const double model_tf32 = predictedMs(MathPrecision::kTf32, m, n, k, 4, kContiguousMm);
    const double model_bf16 = predictedMs(MathPrecision::kBf16, m, n, k, 2, kContiguousMm);
    const double amp_ratio = (model_fp32 / model_bf16) / (fp32 / bf16);
    EXPECT_LT(amp_ratio, 1.25) << shape << ": model " << model_fp32 / model_bf16 << "x, measured " << fp32 / bf16 << "x";
    if (bf16 < 0.02) {
      ++small;
      continue;
    }
    ++compute_bound;
    // FP32 on CUDA cores: H100's SGEMM reaches about 76% of the datasheet peak where the model
    // assumes 90% (docs/performance_model.md), so the model is up to 20% short.
    EXPECT_GT(model_fp32 / fp32, 0.75) << shape;
    EXPECT_LT(model_fp32 / fp32, 1.05) << shape;
    EXPECT_GT(model_tf32 / tf32, 0.75) << shape;
    EXPECT_LT(model_tf32 / tf32, 1.25) << shape;
    EXPECT_GT(model_bf16 / bf16, 0.8) << shape;
    EXPECT_LT(model_bf16 / bf16, 1.25) << shape;
    // What AMP gives the GEMM: 2.6x misaligned, 12-16x aligned.
    EXPECT_GT(amp_ratio, 0.7) << shape;
    EXPECT_LT(amp_ratio, 1.35) << shape;
  }
  EXPECT_EQ(compute_bound, 9);
  EXPECT_EQ(small, 14);
}

TEST(H100MeasurementsTest, StepsOfAHostRunningAheadLastAsLongAsTheMeasuredSteps) {
  struct Case {
    const char* file;
    double measured_ms;
  };
  for (const Case& c : {Case{"lm_fp32.json.gz", measuredStepMs("fp32", false)},
                        Case{"lm_fp32_8steps.json.gz", measuredStepMs("fp32", false)},
                        Case{"lm_tf32.json.gz", measuredStepMs("fp32", true)}}) {
    const RunAnalysis run = analyzed(c.file);
    const IterationSummary& it = run.summary.iterations;
    const double step_ms = static_cast<double>(it.steady_mean_ns) / 1e6;
    // Profiled steps (CUPTI, shapes recorded) against unprofiled ones: within 10%.
    EXPECT_NEAR(step_ms / c.measured_ms, 1.0, 0.10) << c.file << ": " << step_ms << " ms";
    EXPECT_TRUE(hostRanAhead(it)) << c.file;
    EXPECT_LT(it.steady_host_mean_ns, it.steady_mean_ns * 3 / 4) << c.file;
  }
}

TEST(H100MeasurementsTest, TheFp32LmsProjectionsAreNearItsMeasuredAmpAndTf32Steps) {
  const RunAnalysis run = analyzed("lm_fp32.json.gz");
  const double fp32 = measuredStepMs("fp32", false);
  // BF16 autocast measured 2.68x (FP16 with a GradScaler 2.55x); the vocabulary of 50257 keeps its
  // three GEMMs on align1 kernels, which the projection must know to come near.
  const double measured_amp = fp32 / measuredStepMs("bf16", false);
  EXPECT_NEAR(std::log(run.summary.amdahl.projected_speedup / measured_amp), 0.0, 0.15)
      << run.summary.amdahl.projected_speedup << " against " << measured_amp;
  // TF32 measured 2.33x. The projection applies the model's TF32 / FP32 time ratio to each
  // measured FP32 op; the model's FP32 time is up to 20% short on an H100 (above), so the TF32
  // projection comes out as much too low.
  const double measured_tf32 = fp32 / measuredStepMs("fp32", true);
  const auto tf32 = std::find_if(run.recommendations.begin(), run.recommendations.end(),
                                 [](const Recommendation& r) { return r.rule == "enable-tf32"; });
  ASSERT_NE(tf32, run.recommendations.end());
  const double step = static_cast<double>(run.summary.iterations.steady_mean_ns);
  const double projected_tf32 = step / (step - static_cast<double>(tf32->estimated_gain_ns));
  EXPECT_NEAR(std::log(projected_tf32 / measured_tf32), 0.0, 0.3) << projected_tf32 << " against " << measured_tf32;
}

TEST(H100MeasurementsTest, AFullLaunchQueueIsGpuBoundAndAStepThatReadsItsLossEachStepOfATinyMlpIsHostBound) {
  // The LM's host fills the launch queue (1022 items) and blocks; kernels queued before the
  // recording began keep the GPU busy at its start, and count as busy time.
  const RunAnalysis lm = analyzed("lm_fp32_8steps.json.gz");
  EXPECT_EQ(lm.summary.launch_queue.pacing, Pacing::kGpuBound) << lm.summary.launch_queue.pacing_evidence;
  EXPECT_GT(lm.summary.launch_queue.gpu_busy_fraction, 0.9);
  EXPECT_GT(lm.summary.launch_queue.blocked_launches, 100u);
  // 784-256-256-128-10 at batch 32: the GPU idles while Python issues the next op.
  const RunAnalysis mlp = analyzed("small_mlp_fp32.json.gz");
  EXPECT_EQ(mlp.summary.launch_queue.pacing, Pacing::kHostBound) << mlp.summary.launch_queue.pacing_evidence;
}

TEST(H100MeasurementsTest, TheSmallGemmsOfAnMlpGainWhatTheirBf16KernelsTookNotThePeakRatio) {
  // 784-256-256-128-10 at batch 32: GEMMs of 2 to 14 us, each matched with the same op call in
  // the BF16 trace. Measured, AMP makes them 1.3-5.3x faster (28.8 us against 70.9 us a step,
  // 2.5x), where the peak ratio is 14.8x: what is left is each kernel's steps over K, and the
  // one kernel a BF16 call needs against the FP32 call's GEMM, split-K reduce and bias kernels.
  const RunAnalysis fp32 = analyzed("small_mlp_fp32.json.gz");
  const RunAnalysis bf16 = analyzed("small_mlp_bf16.json.gz");
  std::map<std::tuple<std::string, std::string, trace::Phase>, double> bf16_per_call;
  for (const OpRow& row : bf16.summary.op_performance.rows) {
    if (row.op_class == OpClass::kMatrix && row.calls > 0) {
      bf16_per_call[{row.op, row.shapes, row.pass}] = static_cast<double>(row.time_ns) / static_cast<double>(row.calls);
    }
  }
  double fp32_ns = 0, predicted_ns = 0, measured_ns = 0;
  int matched = 0;
  for (const OpRow& row : fp32.summary.op_performance.rows) {
    const auto found = bf16_per_call.find({row.op, row.shapes, row.pass});
    if (row.op_class != OpClass::kMatrix || row.calls == 0 || found == bf16_per_call.end()) continue;
    ASSERT_TRUE(row.predicted_amp_ns.has_value()) << row.op << " " << row.shapes;
    ++matched;
    const double calls = static_cast<double>(row.calls);
    fp32_ns += static_cast<double>(row.time_ns) / calls;
    predicted_ns += static_cast<double>(*row.predicted_amp_ns) / calls;
    measured_ns += found->second;
  }
  EXPECT_EQ(matched, 11);
  EXPECT_NEAR(std::log(predicted_ns / measured_ns), 0.0, 0.3)
      << "predicted " << predicted_ns << " ns against " << measured_ns << " ns measured, from " << fp32_ns << " ns";
  EXPECT_LT(fp32_ns / predicted_ns, 4.0);
}

}  // namespace
}  // namespace ampscope::analyzer
