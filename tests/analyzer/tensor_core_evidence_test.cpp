// Tests of analyzer/verdicts/tensor_core_evidence.h: what a kernel no rule row knows is said to run on, by
// the element type in its name and the device (a), by the rate its op achieved (b), or unknown (c).

#include "analyzer/verdicts/tensor_core_evidence.h"

#include <string>

#include <gtest/gtest.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/summary/trace_summary.h"
#include "gpu_trace_builder.h"

namespace ampscope::analyzer {
namespace {

// Matrix kernels of no family the rules know, with and without an element type in the name (as a
// custom CUDA extension names its kernels).
constexpr const char* kBf16CustomGemm = "void my_ext::grouped_gemm_kernel<__nv_bfloat16, 128, 128>(my_ext::Params)";
constexpr const char* kUntypedCustomGemm = "void my_ext::grouped_gemm_kernel<128, 128>(my_ext::Params)";
constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";
constexpr const char* kGemmShapes = "[[4096,4096],[4096,4096]]";  // 137.4 GFLOP
constexpr const char* kBf16Dtypes = "[\"c10::BFloat16\",\"c10::BFloat16\"]";

VerdictDevice deviceOf(GpuArchitecture architecture, const char* name) { return {architecture, name}; }

TensorCoreVerdict ruleVerdict(const char* name) { return TensorCoreRules::builtin().classify(name); }

TEST(TensorCoreEvidenceTest, RulesLeaveAMatrixKernelOfAnUnknownFamilyUnknownNotNegative) {
  const TensorCoreVerdict verdict = ruleVerdict(kBf16CustomGemm);
  EXPECT_EQ(verdict.tensor_core, TensorCoreUse::kUnknown);
  EXPECT_FALSE(verdict.tensor_core);  // unknown never counts as Tensor Core time
  EXPECT_EQ(verdict.rule_id, rule_ids::kUnknownMatrixKernel);
  EXPECT_STREQ(tensorCoreUseName(verdict.tensor_core), "unknown");
}

TEST(TensorCoreEvidenceTest, LowPrecisionTypeOnADeviceWithThoseTensorCoresIsLikelyTensorCore) {
  const TensorCoreVerdict v =
      withNameEvidence(ruleVerdict(kBf16CustomGemm), kBf16CustomGemm, deviceOf(GpuArchitecture::kHopper, "H100 SXM"));
  EXPECT_EQ(v.tensor_core, TensorCoreUse::kYes);
  EXPECT_EQ(v.precision, MathPrecision::kBf16);
  EXPECT_EQ(v.confidence, Confidence::kMedium);
  EXPECT_EQ(v.rule_id, rule_ids::kInferredLowPrecisionMatrix);
  EXPECT_NE(v.evidence.find("BF16"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("H100 SXM"), std::string::npos) << v.evidence;
}

TEST(TensorCoreEvidenceTest, ATypeTheDevicesTensorCoresLackOrAnUnknownDeviceClaimsNothing) {
  const TensorCoreVerdict volta =
      withNameEvidence(ruleVerdict(kBf16CustomGemm), kBf16CustomGemm, deviceOf(GpuArchitecture::kVolta, "V100 SXM2"));
  EXPECT_EQ(volta.tensor_core, TensorCoreUse::kUnknown);
  EXPECT_EQ(volta.confidence, Confidence::kLow);
  EXPECT_NE(volta.evidence.find("no BF16 Tensor Cores"), std::string::npos) << volta.evidence;

  const TensorCoreVerdict unknown_device = withNameEvidence(ruleVerdict(kBf16CustomGemm), kBf16CustomGemm, {});
  EXPECT_EQ(unknown_device.tensor_core, TensorCoreUse::kUnknown);
  EXPECT_NE(unknown_device.evidence.find("device is unknown"), std::string::npos) << unknown_device.evidence;
}

TEST(TensorCoreEvidenceTest, ElementTypesAreReadAsTokensLowestPrecisionFirst) {
  EXPECT_EQ(lowPrecisionInName("gemm<cutlass::float_e4m3_t, cutlass::bfloat16_t>"), MathPrecision::kFp8);
  EXPECT_EQ(lowPrecisionInName("gemm_bf16_kernel"), MathPrecision::kBf16);  // not the "f16" inside
  EXPECT_EQ(lowPrecisionInName("conv2d<c10::Half>"), MathPrecision::kFp16);
  EXPECT_EQ(lowPrecisionInName("gemm<int8_t>"), MathPrecision::kInt8);
  EXPECT_EQ(lowPrecisionInName("gemm_float8_e4m3fn"), MathPrecision::kFp8);
  // Parts of longer words are not types.
  EXPECT_EQ(lowPrecisionInName("behalf_gemm<uint8_t>"), MathPrecision::kUnknown);
  EXPECT_EQ(lowPrecisionInName("gemm<float>"), MathPrecision::kUnknown);
}

TEST(TensorCoreEvidenceTest, ArchitectureComesFromTheComputeCapability) {
  EXPECT_EQ(architectureForComputeCapability(7, 0), GpuArchitecture::kVolta);
  EXPECT_EQ(architectureForComputeCapability(7, 5), GpuArchitecture::kTuring);
  EXPECT_EQ(architectureForComputeCapability(8, 6), GpuArchitecture::kAmpere);
  EXPECT_EQ(architectureForComputeCapability(8, 9), GpuArchitecture::kAda);
  EXPECT_EQ(architectureForComputeCapability(9, 0), GpuArchitecture::kHopper);
  EXPECT_EQ(architectureForComputeCapability(12, 0), GpuArchitecture::kBlackwell);
  EXPECT_FALSE(architectureForComputeCapability(6, 1));  // Pascal: no Tensor Cores
}

TEST(TensorCoreEvidenceTest, TheSummaryCountsNameEvidenceAsMediumConfidenceTensorCoreTime) {
  const TraceSummary s =
      GpuTraceBuilder(kH100).op("aten::mm", kGemmShapes, kBf16Dtypes, kBf16CustomGemm, 2000 * kUs).summary();
  EXPECT_EQ(s.tensor_cores.time_ns, 2000 * kUs);
  EXPECT_EQ(s.tensor_cores.medium_confidence_ns, 2000 * kUs);
  EXPECT_EQ(s.tensor_cores.unknown_time_ns, 0);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].verdict.rule_id, rule_ids::kInferredLowPrecisionMatrix);
  EXPECT_NE(s.kernels[0].evidence.find("medium confidence: likely Tensor Core"), std::string::npos)
      << s.kernels[0].evidence;
}

TEST(TensorCoreEvidenceTest, ARateNoCudaCoreReachesProvesTensorCoresWithHighConfidence) {
  // 137.4 GFLOP in 300 us is 458 TFLOP/s: above 4 x the H100's 67 TFLOP/s FP32 (268), below its
  // Tensor Core peak.
  const TraceSummary s =
      GpuTraceBuilder(kH100).op("aten::mm", kGemmShapes, kBf16Dtypes, kUntypedCustomGemm, 300 * kUs).summary();
  ASSERT_EQ(s.kernels.size(), 1u);
  const TensorCoreVerdict& v = s.kernels[0].verdict;
  EXPECT_EQ(v.tensor_core, TensorCoreUse::kYes);
  EXPECT_EQ(v.confidence, Confidence::kHigh);
  EXPECT_EQ(v.rule_id, rule_ids::kInferredFromRate);
  EXPECT_NE(v.evidence.find("achieved 458.1 TFLOP/s > CUDA-core peak 268.0"), std::string::npos) << v.evidence;
  EXPECT_EQ(s.tensor_cores.high_confidence_ns, 300 * kUs);
  EXPECT_EQ(s.tensor_cores.unknown_time_ns, 0);
  // Every view of the run reads the upgraded verdict: the op row, the operator groups, the layers.
  ASSERT_EQ(s.op_performance.rows.size(), 1u);
  EXPECT_EQ(s.op_performance.rows[0].tensor_core_time_ns, 300 * kUs);
  ASSERT_EQ(s.operators.size(), 1u);
  EXPECT_EQ(s.operators[0].tensor_core_time_ns, 300 * kUs);
}

// A rate proves only that some matrix kernel of the op ran on Tensor Cores: when one of its kernels
// is already known (an FP16 Tensor Core GEMM here), that one may have done the math, and the
// unknown kernel beside it proves nothing.
TEST(TensorCoreEvidenceTest, AKnownMatrixKernelInTheSameOpBlocksTheRateProof) {
  const TraceSummary s = GpuTraceBuilder(kH100)
                             .op("aten::mm", kGemmShapes, kBf16Dtypes, kUntypedCustomGemm, 150 * kUs)
                             .alsoKernel("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
                                         "execute_segment_k_off_kernel__5x_cublas", 150 * kUs)
                             .summary();
  bool saw_unknown = false;
  for (const KernelRow& k : s.kernels) {
    if (k.name != kUntypedCustomGemm) continue;
    saw_unknown = true;
    EXPECT_EQ(k.verdict.tensor_core, TensorCoreUse::kUnknown) << k.verdict.evidence;
    EXPECT_NE(k.verdict.rule_id, rule_ids::kInferredFromRate);
  }
  EXPECT_TRUE(saw_unknown);
  EXPECT_EQ(s.tensor_cores.unknown_time_ns, 150 * kUs);
}

TEST(TensorCoreEvidenceTest, WithoutEvidenceTheKernelStaysUnknownAndItsTimeIsShown) {
  // 137.4 GFLOP in 2 ms is 69 TFLOP/s: CUDA cores could (4 x FP32 = 268), so nothing is proven.
  const TraceSummary slow =
      GpuTraceBuilder(kH100).op("aten::mm", kGemmShapes, kBf16Dtypes, kUntypedCustomGemm, 2000 * kUs).summary();
  ASSERT_EQ(slow.kernels.size(), 1u);
  EXPECT_EQ(slow.kernels[0].verdict.tensor_core, TensorCoreUse::kUnknown);
  EXPECT_EQ(slow.kernels[0].verdict.confidence, Confidence::kLow);
  EXPECT_EQ(slow.tensor_cores.time_ns, 0);
  EXPECT_EQ(slow.tensor_cores.unknown_time_ns, 2000 * kUs);
  EXPECT_DOUBLE_EQ(slow.tensor_cores.unknown_fraction, 1.0);
  EXPECT_NE(slow.kernels[0].evidence.find("only its SASS or its rate can tell"), std::string::npos)
      << slow.kernels[0].evidence;
  // The projection claims no AMP gain for it either: it may already run BF16 on Tensor Cores.
  const StepPart* unknown = slow.amdahl.part(StepPartKind::kUnknownMath);
  ASSERT_NE(unknown, nullptr) << slow.amdahl.note;
  EXPECT_GT(unknown->ns_per_step, 0);
  EXPECT_DOUBLE_EQ(unknown->speedup, 1.0);
  EXPECT_EQ(slow.amdahl.part(StepPartKind::kEligibleFp32Math)->ns_per_step, 0);

  // 137.4 GFLOP in 50 us would be 2749 TFLOP/s, above every peak of the H100: an input is wrong,
  // and a wrong input proves nothing.
  const TraceSummary impossible =
      GpuTraceBuilder(kH100).op("aten::mm", kGemmShapes, kBf16Dtypes, kUntypedCustomGemm, 50 * kUs).summary();
  EXPECT_EQ(impossible.kernels[0].verdict.tensor_core, TensorCoreUse::kUnknown);
  EXPECT_EQ(impossible.tensor_cores.unknown_time_ns, 50 * kUs);
}

TEST(TensorCoreEvidenceTest, CudaCoreBoundIsFourTimesFp32AndTheTensorCorePeakTheHighestTensorCoreRate) {
  const DeviceSpec* h100 = findDevice("H100-SXM");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(cudaCorePeakTflops(*h100), 4.0 * 67.0);
  EXPECT_DOUBLE_EQ(tensorCorePeakTflops(*h100), 1978.9);
  // An RTX 4090's FP16 Tensor Core rate (165.2, FP32 accumulate) is below the CUDA-core bound
  // (330.4): there, only a rate above the bound proves Tensor Cores, never the FP16 peak.
  const DeviceSpec* rtx4090 = findDevice("RTX 4090");
  ASSERT_NE(rtx4090, nullptr);
  EXPECT_GT(cudaCorePeakTflops(*rtx4090), rtx4090->fp16_tflops);
}

}  // namespace
}  // namespace ampscope::analyzer
