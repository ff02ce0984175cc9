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

#include "analyzer/advice/recommendations.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/op_time_model.h"
#include "analyzer/run_analysis.h"
#include "analyzer/steps/launch_queue.h"
#include "analyzer/verdicts/gemm_kernel_family.h"
#include "gpu_trace_builder.h"
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

bool memoryBound(MathPrecision precision, std::int64_t m, std::int64_t n, std::int64_t k, int element) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.leading = LeadingDims{false, true, true};
  const double mm = static_cast<double>(m), nn = static_cast<double>(n), kk = static_cast<double>(k);
  const auto t = estimateMatrixTime(h100(), precision, d, 2.0 * mm * nn * kk, element * (mm * kk + kk * nn + mm * nn), 1);
  return t && t->bound == RooflineBound::kMemory;
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
      // Small BF16 kernels: their steps over K, split-K's reduction pass and fixed cost. Those the
      // model puts on memory read their operands from L2 in the replay, not from DRAM, and run
      // faster than it says (8 or 32 x 4096 x 4096, 16384 x 64 x 1024: 0.67-0.75x the model).
      // The 128^3 kernel costs the model's 2 us floor, the graph 2.8 us a call.
      if (!memoryBound(MathPrecision::kBf16, m, n, k, 2)) {
        EXPECT_GT(model_bf16 / bf16, 0.7) << shape << ": model " << model_bf16 * 1e3 << " us, measured " << bf16 * 1e3;
        EXPECT_LT(model_bf16 / bf16, 1.2) << shape << ": model " << model_bf16 * 1e3 << " us, measured " << bf16 * 1e3;
      }
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

// A matrix op call shape of an FP32 run that the BF16 run of the same model ran too (by op name,
// shapes and pass): each run's time per call, and the FP32 run's predicted AMP time per call.
struct PairedMatrixOp {
  std::string name;  // "aten::addmm [[128],[32,256],[256,128],[],[]]"
  double fp32_ns = 0;
  double bf16_ns = 0;
  double predicted_ns = 0;
  double measuredSpeedup() const { return fp32_ns / bf16_ns; }
  double predictedSpeedup() const { return fp32_ns / predicted_ns; }
};

std::vector<PairedMatrixOp> pairedMatrixOps(const RunAnalysis& fp32, const RunAnalysis& bf16) {
  std::map<std::tuple<std::string, std::string, trace::Phase>, double> bf16_per_call;
  for (const OpRow& row : bf16.summary.op_performance.rows) {
    if (row.op_class == OpClass::kMatrix && row.calls > 0) {
      bf16_per_call[{row.op, row.shapes, row.pass}] = static_cast<double>(row.time_ns) / static_cast<double>(row.calls);
    }
  }
  std::vector<PairedMatrixOp> paired;
  for (const OpRow& row : fp32.summary.op_performance.rows) {
    const auto found = bf16_per_call.find({row.op, row.shapes, row.pass});
    if (row.op_class != OpClass::kMatrix || row.calls == 0 || found == bf16_per_call.end()) continue;
    EXPECT_TRUE(row.predicted_amp_ns.has_value()) << row.op << " " << row.shapes;
    const double calls = static_cast<double>(row.calls);
    paired.push_back({row.op + " " + row.shapes, static_cast<double>(row.time_ns) / calls, found->second,
                      static_cast<double>(row.predicted_amp_ns.value_or(row.time_ns)) / calls});
  }
  return paired;
}

TEST(H100MeasurementsTest, TheSmallGemmsOfAnMlpGainWhatTheirBf16KernelsTookNotThePeakRatio) {
  // 784-256-256-128-10 at batch 32: GEMMs of 2 to 14 us, each matched with the same op call in
  // the BF16 trace. Measured, AMP makes them 1.3-5.3x faster (28.8 us against 70.9 us a step,
  // 2.5x), where the peak ratio is 14.8x. Their FP32 kernels are cuBLAS's for small outputs
  // (32x32 and 64x64 SIMT tiles, sgemm_largek with its scal and epilogue kernels), up to 2.3x the
  // FP32 model's time; the BF16 kernels take their own model's time (steps over K, one kernel).
  const RunAnalysis fp32 = analyzed("small_mlp_fp32.json.gz");
  const RunAnalysis bf16 = analyzed("small_mlp_bf16.json.gz");
  double fp32_ns = 0, predicted_ns = 0, measured_ns = 0;
  const std::vector<PairedMatrixOp> paired = pairedMatrixOps(fp32, bf16);
  for (const PairedMatrixOp& op : paired) {
    fp32_ns += op.fp32_ns;
    predicted_ns += op.predicted_ns;
    measured_ns += op.bf16_ns;
    // Op by op within a factor 1.5 of the measured gain (before the FP32 kernels' shortfall
    // stopped carrying: 0.58x of it for the sgemm_largek addmm, 3.1x against 5.3x measured).
    EXPECT_NEAR(std::log(op.predictedSpeedup() / op.measuredSpeedup()), 0.0, 0.4)
        << op.name << ": predicted " << op.predictedSpeedup() << "x, measured " << op.measuredSpeedup() << "x";
  }
  EXPECT_EQ(paired.size(), 11u);
  EXPECT_NEAR(std::log(predicted_ns / measured_ns), 0.0, 0.15)
      << "predicted " << predicted_ns << " ns against " << measured_ns << " ns measured, from " << fp32_ns << " ns";
  EXPECT_LT(fp32_ns / predicted_ns, 4.0);
}

TEST(H100MeasurementsTest, TheLmsLargeGemmsKeepTheirPredictedAmpGains) {
  // Large GEMMs on large SIMT tiles: their FP32 shortfall (H100's SGEMM at 76% of the peak where
  // the model assumes 90%) carries, and they are predicted 12-13x against 11-15x measured, the
  // vocabulary's align1 GEMMs 2.5-2.6x against 1.9-3.0x.
  const std::vector<PairedMatrixOp> paired = pairedMatrixOps(analyzed("lm_fp32.json.gz"), analyzed("lm_bf16.json.gz"));
  double sum = 0;
  for (const PairedMatrixOp& op : paired) {
    const double error = std::log(op.predictedSpeedup() / op.measuredSpeedup());
    sum += std::abs(error);
    EXPECT_NEAR(error, 0.0, 0.45) << op.name << ": predicted " << op.predictedSpeedup() << "x, measured " << op.measuredSpeedup() << "x";
  }
  EXPECT_EQ(paired.size(), 15u);  // 4096 x 4096 x 1024 as two rows, one per pass
  EXPECT_LT(sum / static_cast<double>(paired.size()), 0.2);
}

// The GEMMs timed in a CUDA graph, each predicted as an op of an FP32 trace would be from its
// measured FP32 time, by a kernel whose name says nothing of its tile (the graph's timings have no
// names): where the shape says the FP32 path falls short (fewer than 64 rows or columns, or fewer
// 128x64 tiles than SMs), from the BF16 model's own time. Before, the FP32 shortfall carried:
// 1.9x for 8 x 4096 x 4096 against 5.7x measured, 2.0x against 4.8x for 32 rows, 2.9x against
// 6.6x for 16384 x 64 x 1024. What is left: the graph replay finds the skinny shapes' BF16
// weights in L2 (33 MB, 50 MB of L2) where the model reads them from DRAM, so the measured gains
// of those three are above what the same GEMMs reading their weights from DRAM would show.
TEST(H100MeasurementsTest, SmallAndSkinnyGemmsTimedInAGraphGainWhatTheirBf16KernelsTake) {
  const nlohmann::json timings = readJson("h100/graph_gemm_timings.json");
  GpuTraceBuilder builder("NVIDIA H100 80GB HBM3");
  std::map<std::string, double> measured;  // by shapes
  for (const auto& row : timings.at("gemms")) {
    const std::int64_t m = row.at("m"), n = row.at("n"), k = row.at("k");
    GemmDims dims;
    dims.m = m;
    dims.n = n;
    dims.k = k;
    if (!fp32PathFallsShort(GemmKernelFamily::kUnknown, dims, h100().sm_count)) continue;
    const std::string shapes = fmt::format("[[{},{}],[{},{}]]", m, k, k, n);
    const double fp32_ms = row.at("fp32_ms"), bf16_ms = row.at("bf16_ms");
    measured[shapes] = fp32_ms / bf16_ms;
    builder.op("aten::mm", shapes, "[\"float\",\"float\"]", "void magma_sgemmEx_kernel<float, float, float, 0, 0, 6, 3, 5, 3, 3>",
               static_cast<std::int64_t>(std::llround(fp32_ms * 1e6)));
  }
  const TraceSummary s = builder.summary();
  double sum = 0;
  int predicted = 0;
  for (const OpRow& row : s.op_performance.rows) {
    const auto found = measured.find(row.shapes);
    if (found == measured.end()) continue;
    ++predicted;
    const double error = std::log(row.amp_speedup / found->second);
    sum += std::abs(error);
    EXPECT_NEAR(error, 0.0, 0.45) << row.shapes << ": predicted " << row.amp_speedup << "x, measured " << found->second << "x";
    EXPECT_LE(row.amp_speedup, s.device.spec->bf16_tflops / s.device.spec->fp32_tflops);
  }
  EXPECT_EQ(predicted, 14);
  EXPECT_LT(sum / predicted, 0.25);
}

}  // namespace
}  // namespace ampscope::analyzer
