// Tests of analyzer/model/op_performance.h: each op's work, achieved rate against the device's peak,
// and its prediction under AMP, on traces built here and on the shared real traces.

#include "analyzer/model/op_performance.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/advice/recommendations.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"
#include "analyzer/summary/trace_summary.h"
#include "gpu_trace_builder.h"
#include "imported_trace.h"
#include "synthetic_run.h"
#include "trainer_cpu_trace.h"

namespace ampscope::analyzer {
namespace {

const OpRow* rowOf(const TraceSummary& s, const std::string& op) {
  for (const OpRow& row : s.op_performance.rows) {
    if (row.op == op) return &row;
  }
  ADD_FAILURE() << "no op row " << op;
  return nullptr;
}

constexpr const char* kSgemm = "ampere_sgemm_128x64_tn";
constexpr const char* kElementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";

// An FP32 model on an A100: each op class gets the prediction its kind deserves.
TraceSummary fp32ModelOnA100() {
  // 4096^3 GEMM: 137 GFLOP; at ~17.5 TFLOP/s FP32 it takes ~7.9 ms.
  return GpuTraceBuilder("NVIDIA A100-SXM4-80GB")
      .op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kSgemm, 7900 * kUs)
      .op("aten::relu", "[[4096,4096]]", "[\"float\"]", kElementwise, 60 * kUs)
      .op("aten::_softmax", "[[4096,4096],[],[]]", "[\"float\",\"\",\"\"]", "softmax_warp_forward", 60 * kUs)
      .op("record_param_comms", "[]", "[]", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 500 * kUs)
      .op("aten::add_", "[[4096,4096],[4096,4096],[]]", "[\"float\",\"float\",\"Scalar\"]", kElementwise, 90 * kUs,
          trace::Phase::kOptimizer)
      .summary();
}

TEST(OpPerformanceTest, EachKindOfOpGetsTheAmpPredictionItsKindAllows) {
  const TraceSummary s = fp32ModelOnA100();
  ASSERT_NE(s.device.spec, nullptr);
  const OpRow* mm = rowOf(s, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->op_class, OpClass::kMatrix);
  EXPECT_EQ(mm->amp, AmpChange::kTensorCores);
  ASSERT_TRUE(mm->work.flops);
  EXPECT_DOUBLE_EQ(*mm->work.flops, 2.0 * 4096.0 * 4096.0 * 4096.0);
  ASSERT_TRUE(mm->achieved_tflops);
  EXPECT_NEAR(*mm->achieved_tflops, 2.0 * 4096.0 * 4096.0 * 4096.0 / 7.9e-3 / 1e12, 0.01);
  EXPECT_DOUBLE_EQ(mm->peak_tflops, s.device.spec->fp32_tflops);
  EXPECT_EQ(mm->bound, RooflineBound::kCompute);
  // A large aligned GEMM: most of the 16x peak ratio, never more.
  EXPECT_GT(mm->amp_speedup, 10.0);
  EXPECT_LE(mm->amp_speedup, s.device.spec->fp16_tflops / s.device.spec->fp32_tflops);
  EXPECT_GT(mm->tf32_speedup, 5.0);  // TF32 is 8x FP32 on an A100

  const OpRow* relu = rowOf(s, "aten::relu");
  EXPECT_EQ(relu->amp, AmpChange::kHalvedBytes);
  EXPECT_GT(relu->amp_speedup, 1.8);
  EXPECT_LE(relu->amp_speedup, 2.0);
  EXPECT_EQ(rowOf(s, "aten::_softmax")->amp, AmpChange::kKeptFp32);
  EXPECT_DOUBLE_EQ(rowOf(s, "aten::_softmax")->amp_speedup, 1.0);
  EXPECT_EQ(rowOf(s, "record_param_comms")->op_class, OpClass::kCommunication);
  EXPECT_DOUBLE_EQ(rowOf(s, "record_param_comms")->amp_speedup, 1.0);
  EXPECT_EQ(rowOf(s, "aten::add_")->amp, AmpChange::kKeptFp32);  // the optimizer's FP32 master weights
  // The window (no steps) sums the ops: its communication part stays at 1x.
  EXPECT_FALSE(s.amdahl.per_step);
  ASSERT_NE(s.amdahl.part(StepPartKind::kCommunication), nullptr);
  EXPECT_DOUBLE_EQ(s.amdahl.part(StepPartKind::kCommunication)->speedup, 1.0);
  EXPECT_NEAR(s.amdahl.part(StepPartKind::kEligibleFp32Math)->speedup, mm->amp_speedup, 1e-9);
}

TEST(OpPerformanceTest, ARateAboveTheDevicesPeakIsUnknownAndSaysWhy) {
  // 137 GFLOP in 1 ms would be 137 TFLOP/s in FP32 on a 19.5 TFLOP/s A100.
  const TraceSummary s = GpuTraceBuilder("NVIDIA A100-SXM4-80GB")
                             .op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kSgemm, 1000 * kUs)
                             .summary();
  const OpRow* mm = rowOf(s, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_FALSE(mm->achieved_tflops);
  EXPECT_TRUE(mm->work_above_peak);
  EXPECT_NE(mm->rate_note.find("above"), std::string::npos) << mm->rate_note;
  EXPECT_EQ(s.op_performance.flops_per_step, s.op_performance.flops_per_step);  // defined, not NaN
}

// A kernel name that carries no build target ("gemm_kernel") proves no architecture.
constexpr const char* kUntargetedSgemm = "void gemm_kernel<float, 128, 64>(float const*, float const*, float*)";

TEST(OpPerformanceTest, AnUnknownDeviceGetsNoRatesUntilItIsNamed) {
  GpuTraceBuilder unnamed("");
  unnamed.op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kUntargetedSgemm, 7900 * kUs);
  const TraceSummary s = unnamed.summary();
  EXPECT_EQ(s.device.spec, nullptr);
  EXPECT_TRUE(s.amdahl.parts.empty());
  EXPECT_NE(s.amdahl.note.find("--gpu"), std::string::npos) << s.amdahl.note;
  EXPECT_FALSE(rowOf(s, "aten::mm")->achieved_tflops);

  GpuTraceBuilder named("");
  named.op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kUntargetedSgemm, 7900 * kUs);
  const TraceSummary with_gpu = named.summary(AnalysisOptions{"A100-SXM"});
  ASSERT_NE(with_gpu.device.spec, nullptr);
  EXPECT_EQ(with_gpu.device.basis, DeviceBasis::kUserNamed);
  EXPECT_TRUE(rowOf(with_gpu, "aten::mm")->achieved_tflops);
  EXPECT_FALSE(with_gpu.amdahl.parts.empty());
}

// A trace that names no GPU but whose kernels were built for Ampere (ampere_sgemm_) is read
// against the A100 row as a stated lower bound; a rate above that row's peak is then the GPU
// being newer, not the work being wrong.
TEST(OpPerformanceTest, KernelNamesGiveALowerBoundDeviceWhoseExceededPeakIsNoError) {
  GpuTraceBuilder unnamed("");
  unnamed.op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kSgemm, 7900 * kUs);
  const TraceSummary s = unnamed.summary();
  ASSERT_NE(s.device.spec, nullptr);
  EXPECT_EQ(s.device.basis, DeviceBasis::kKernelNames);
  EXPECT_EQ(s.device.spec->name, "A100 SXM");
  EXPECT_NE(s.device.reason.find("at least Ampere"), std::string::npos) << s.device.reason;
  EXPECT_TRUE(rowOf(s, "aten::mm")->achieved_tflops);
  EXPECT_FALSE(s.amdahl.parts.empty());

  // 2 x 4096^3 FLOPs in 4 ms is 34 TFLOP/s: above the A100's 19.5 FP32, within an H100's 67.
  GpuTraceBuilder fast("");
  fast.op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", kSgemm, 4000 * kUs);
  const TraceSummary f = fast.summary();
  const OpRow* mm = rowOf(f, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_FALSE(mm->work_above_peak);
  ASSERT_TRUE(mm->achieved_tflops);
  EXPECT_GT(*mm->achieved_tflops, 30);
  EXPECT_NE(mm->rate_note.find("newer than its kernel names prove"), std::string::npos) << mm->rate_note;
}

// A GPU the table lacks, derived from its architecture, may have no memory bandwidth in its trace
// (Kineto records none): its GEMMs are still predicted from the model, not held at 1x by an
// infinite memory floor.
TEST(OpPerformanceTest, ADerivedDeviceWithoutBandwidthStillPredictsItsMatrixOps) {
  trace::Trace trace = test::syntheticRun(
      {{"aten::mm", "[[4096,4096],[4096,4096]]", "[\"float\",\"float\"]", "volta_sgemm_128x64_nn", 11'000'000}}, 6,
      {.name = "Quadro GV100", .compute_major = 7, .sm_count = 80, .memory_bytes = 32ull << 30});
  const CorrelationCounts counts = test::correlateAsImported(trace);
  const TraceSummary s = summarizeTrace(trace, counts);
  ASSERT_NE(s.device.spec, nullptr);
  EXPECT_EQ(s.device.basis, DeviceBasis::kDerived);
  EXPECT_EQ(s.device.spec->memory_gbs, 0);  // not recorded, no family row to assume it from
  ASSERT_FALSE(s.op_performance.rows.empty());
  const OpRow& mm = s.op_performance.rows.front();
  EXPECT_GT(mm.amp_speedup, 3.0) << "a 4096^3 FP32 GEMM on a Volta's FP16 Tensor Cores";
}

TEST(OpPerformanceTest, AModelAlreadyInHalfPrecisionGainsNothing) {
  const TraceSummary s =
      GpuTraceBuilder("NVIDIA H100 80GB HBM3")
          .op("aten::mm", "[[4096,4096],[4096,4096]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]",
              "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
              250 * kUs)
          .op("aten::relu", "[[4096,4096]]", "[\"c10::BFloat16\"]", kElementwise, 20 * kUs)
          .summary();
  EXPECT_EQ(rowOf(s, "aten::mm")->amp, AmpChange::kAlreadyHalf);
  EXPECT_EQ(rowOf(s, "aten::relu")->amp, AmpChange::kAlreadyHalf);
  EXPECT_NEAR(s.amdahl.projected_speedup, 1.0, 1e-9);
}

// One FP32 torch.mm of [M, K] x [K, N] on an H100, run by `kernel` in `kernel_ns`.
TraceSummary fp32MmOnH100(std::int64_t m, std::int64_t n, std::int64_t k, const char* kernel, std::int64_t kernel_ns) {
  const std::string shapes = "[[" + std::to_string(m) + "," + std::to_string(k) + "],[" + std::to_string(k) + "," + std::to_string(n) + "]]";
  return GpuTraceBuilder("NVIDIA H100 80GB HBM3").op("aten::mm", shapes, "[\"float\",\"float\"]", kernel, kernel_ns).summary();
}

double modelNs(MathPrecision precision, std::int64_t m, std::int64_t n, std::int64_t k, int element) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  const double mm = static_cast<double>(m), nn = static_cast<double>(n), kk = static_cast<double>(k);
  const auto t = estimateMatrixTime(*findDevice("H100 SXM"), precision, d, 2.0 * mm * nn * kk, element * (mm * kk + kk * nn + mm * nn), 1);
  EXPECT_TRUE(t.has_value());
  return t ? t->ns : 0.0;
}

// 4096 x 4096 x 64 run at half the FP32 model's pace. On large tiles (many of them: the GPU is
// full) the shortfall is taken as shared by every kernel and carries into the BF16 time; on small
// SIMT tiles it is the FP32 kernel's own, and the BF16 time is its model's: twice the gain.
TEST(OpPerformanceTest, TheShortfallOfAnFp32KernelOnSmallTilesIsNotCarriedIntoTheBf16Time) {
  const double fp32_ns = 2.0 * modelNs(MathPrecision::kFp32Simt, 4096, 4096, 64, 4);
  const auto kernel_ns = static_cast<std::int64_t>(fp32_ns);
  const TraceSummary large = fp32MmOnH100(4096, 4096, 64, "ampere_sgemm_128x128_nn", kernel_ns);
  const TraceSummary small = fp32MmOnH100(4096, 4096, 64, "ampere_sgemm_64x32_sliced1x4_nn", kernel_ns);
  const OpRow* on_large = rowOf(large, "aten::mm");
  const OpRow* on_small = rowOf(small, "aten::mm");
  ASSERT_TRUE(on_large && on_small);
  EXPECT_EQ(on_large->kernel_family, GemmKernelFamily::kLargeTile);
  EXPECT_EQ(on_small->kernel_family, GemmKernelFamily::kSmallTile);
  const double ratio = modelNs(MathPrecision::kFp32Simt, 4096, 4096, 64, 4) / modelNs(MathPrecision::kBf16, 4096, 4096, 64, 2);
  EXPECT_NEAR(on_large->amp_speedup, ratio, 0.01 * ratio);
  EXPECT_NEAR(on_small->amp_speedup, fp32_ns / modelNs(MathPrecision::kBf16, 4096, 4096, 64, 2), 0.01 * on_small->amp_speedup);
  EXPECT_NEAR(on_small->amp_speedup / on_large->amp_speedup, 2.0, 0.05);
  EXPECT_NE(on_small->amp_note.find("small_tile"), std::string::npos) << on_small->amp_note;
  // TF32 kernels of such shapes fall short as the FP32 ones do: the ratio either way.
  EXPECT_DOUBLE_EQ(on_small->tf32_speedup, on_large->tf32_speedup);
}

// The same GEMM run faster than the FP32 model (its operands in L2): that carries, but never
// below the BF16 kernel's bytes at the datasheet bandwidth.
TEST(OpPerformanceTest, AHalfPrecisionTimeIsNeverUnderItsBytesAtTheDatasheetBandwidthNorItsKernelFloor) {
  const double fp32_ns = 0.5 * modelNs(MathPrecision::kFp32Simt, 4096, 4096, 64, 4);
  const TraceSummary s = fp32MmOnH100(4096, 4096, 64, "ampere_sgemm_64x32_sliced1x4_nn", static_cast<std::int64_t>(fp32_ns));
  const OpRow* mm = rowOf(s, "aten::mm");
  ASSERT_NE(mm, nullptr);
  const double bf16_bytes = 2.0 * (4096.0 * 64 * 2 + 4096.0 * 4096);
  const double floor_ns = bf16_bytes / (s.device.spec->memory_gbs * 1e9) * 1e9;
  EXPECT_NEAR(static_cast<double>(*mm->predicted_amp_ns), floor_ns, 2.0);
  // A tiny GEMM on gemmSN: 3 us measured, against a BF16 kernel that takes at least 2 us.
  const TraceSummary tiny = fp32MmOnH100(8, 16, 64, "void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false>", 3 * kUs);
  EXPECT_NEAR(rowOf(tiny, "aten::mm")->amp_speedup, 3.0 / 2.0, 1e-6);
  // Never slower than it ran.
  const TraceSummary faster = fp32MmOnH100(8, 16, 64, "void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false>", 1 * kUs);
  EXPECT_DOUBLE_EQ(rowOf(faster, "aten::mm")->amp_speedup, 1.0);
}

TEST(OpPerformanceTest, ASkinnyGemmFarBelowTheFp32ModelGainsNoMoreThanThePeakRatio) {
  const TraceSummary s = fp32MmOnH100(8, 16, 4096, "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false>", 10000 * kUs);
  const OpRow* mm = rowOf(s, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->kernel_family, GemmKernelFamily::kSmallN);
  EXPECT_DOUBLE_EQ(mm->amp_speedup, s.device.spec->bf16_tflops / s.device.spec->fp32_tflops);
}

// Every shared trace: no op's achieved rate is above the device's peak in its precision.
TEST(OpPerformanceTest, NoOpOfASharedTraceRunsAboveItsDevicesPeak) {
  int traces = 0;
  for (const char* relative : {"kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz",
                               "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz",
                               "kineto-a100-dlrm-tf32/control.json.gz",
                               "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
                               "kineto-v100-dlrm-8ranks/worker0_step_12.1694128201545.pt.trace.json",
                               "nvprof-v100-transformer-lm/net.sql", "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite"}) {
    const std::string path = test::sharedTrace(relative);
    if (path.empty()) continue;
    auto run = analyzeFile(path, {}, AnalysisOptions{"H100-SXM"});  // names the Nsight export's GPUs
    ASSERT_TRUE(run.ok()) << relative;
    ++traces;
    const OpPerformance& ops = run->summary.op_performance;
    ASSERT_NE(ops.device.spec, nullptr) << relative;
    double top = 0;
    for (const double peak : {ops.device.spec->fp32_tflops, ops.device.spec->tf32_tflops, ops.device.spec->fp16_tflops,
                              ops.device.spec->bf16_tflops, ops.device.spec->fp8_tflops, ops.device.spec->fp4_tflops}) {
      top = std::max(top, peak);
    }
    for (const OpRow& row : ops.rows) {
      if (!row.achieved_tflops) continue;
      EXPECT_LE(*row.achieved_tflops, row.peak_tflops > 0 ? row.peak_tflops : top) << relative << " " << row.op << " " << row.shapes;
      if (row.achieved_gbs) {
        EXPECT_LE(*row.achieved_gbs, ops.device.spec->memory_gbs) << relative << " " << row.op;
      }
    }
    for (const LayerRow& layer : run->summary.layer_table.rows) {
      if (layer.performance.achieved_tflops && layer.performance.peak_tflops > 0) {
        EXPECT_LE(*layer.performance.achieved_tflops, layer.performance.peak_tflops) << relative << " " << layer.layer;
      }
    }
    if (ops.model_flop_utilisation) {
      EXPECT_LE(*ops.model_flop_utilisation, 1.0) << relative;
    }
  }
  if (traces == 0) GTEST_SKIP() << "the shared traces are not there";
}

TEST(OpPerformanceTest, ResNetOnV100RatesMostOfItsConvolutionsWithTheirStride) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run.ok());
  int convolutions = 0;
  int rated = 0;
  bool stem_seen = false;
  for (const OpRow& row : run->summary.op_performance.rows) {
    if (row.op != "aten::cudnn_convolution") continue;
    ++convolutions;
    if (row.achieved_tflops) ++rated;
    if (row.shapes.rfind("[[32,3,224,224],[64,3,7,7]", 0) == 0) {
      stem_seen = true;
      ASSERT_TRUE(row.work.gemm);
      EXPECT_EQ(row.work.gemm->m, 401'408);  // 32 x 112 x 112: the stride of 2
      ASSERT_TRUE(row.achieved_tflops);
      EXPECT_LE(*row.achieved_tflops, 15.7);
    }
  }
  EXPECT_TRUE(stem_seen);
  EXPECT_GE(convolutions, 20);
  EXPECT_GE(rated * 10, convolutions * 8) << rated << " of " << convolutions;
  // Its FP32 matrix math gains less than the 8x peak ratio: shapes and memory set the pace.
  const StepPart* fp32 = run->summary.amdahl.part(StepPartKind::kEligibleFp32Math);
  ASSERT_NE(fp32, nullptr);
  EXPECT_GT(fp32->speedup, 2.0);
  EXPECT_LT(fp32->speedup, 7.96);
}

// The Nsight export names no GPU: without --gpu its sm80_ kernels make it at least Ampere, a
// guess that says how to name the GPU; with --gpu, the FP32 FFMA GEMMs get an enable-AMP (or
// TF32) recommendation that names them, with its gain.
TEST(OpPerformanceTest, TheNsightExportWithoutAGpuNameGetsAdviceOnceItIsNamed) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  auto unnamed = analyzeFile(path);
  ASSERT_TRUE(unnamed.ok());
  ASSERT_NE(unnamed->summary.device.spec, nullptr);
  EXPECT_EQ(unnamed->summary.device.basis, DeviceBasis::kKernelNames);
  EXPECT_EQ(unnamed->summary.device.spec->name, "A100 SXM");
  EXPECT_NE(unnamed->summary.device.reason.find("at least Ampere"), std::string::npos) << unnamed->summary.device.reason;
  EXPECT_NE(unnamed->summary.device.reason.find("--gpu"), std::string::npos) << unnamed->summary.device.reason;

  auto named = analyzeFile(path, {}, AnalysisOptions{"H100-SXM"});
  ASSERT_TRUE(named.ok());
  bool advised = false;
  for (const Recommendation& r : named->recommendations) {
    if (r.rule != "enable-amp" && r.rule != "enable-tf32") continue;
    advised = true;
    EXPECT_NE(r.evidence.find("ffma"), std::string::npos) << r.evidence;
    EXPECT_GT(r.estimated_gain_ns, 0) << r.rule;
  }
  EXPECT_TRUE(advised);
}

// A CPU run of the trainer: no measured projection, but each layer's predicted FP32 and AMP times
// on a GPU it did not run on, and fc1's width of 100 off the multiple of 8.
TEST(OpPerformanceTest, ACpuRunIsProjectedOnAGpuAsModelEstimates) {
  trace::Trace trace = test::trainerCpuTrace();
  const CorrelationCounts counts = test::correlateAsImported(trace);
  const TraceSummary s = summarizeTrace(trace, counts, AnalysisOptions{"A100"});
  EXPECT_TRUE(s.amdahl.parts.empty());
  ASSERT_NE(s.what_if.device.spec, nullptr);
  EXPECT_EQ(s.what_if.device.spec->name, findDevice("A100")->name);
  EXPECT_FALSE(s.what_if.default_device);
  EXPECT_GT(s.what_if.step_fp32_ns, 0);
  EXPECT_GT(s.what_if.step_amp_ns, 0);
  EXPECT_NE(s.what_if.note.find("estimates"), std::string::npos);
  bool fc1_misaligned = false;
  for (const LayerRow& row : s.layer_table.rows) {
    if (row.layer != "fc1") continue;
    EXPECT_TRUE(row.what_if_fp32_ns) << trace::phaseName(row.pass);
    EXPECT_TRUE(row.what_if_amp_ns) << trace::phaseName(row.pass);
    for (const DimensionFinding& f : row.what_if_misaligned) fc1_misaligned |= f.value == 100 && f.padded == 104;
  }
  EXPECT_TRUE(fc1_misaligned);
  // Without --gpu, a CPU run names the device it projects on.
  const TraceSummary by_default = summarizeTrace(trace, counts);
  ASSERT_NE(by_default.what_if.device.spec, nullptr);
  EXPECT_TRUE(by_default.what_if.default_device);
  EXPECT_EQ(by_default.what_if.device.spec->name, kDefaultWhatIfGpu);
}

}  // namespace
}  // namespace ampscope::analyzer
