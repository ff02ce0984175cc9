// A rank's compact result keeps what its own analysis found: its Tensor Core share, AMP and TF32
// projections, recommendations and the rows of its kernel, layer and op tables, copied from a
// hand-made summary; and the TF32 projection those rest on.

#include "analyzer/job/rank_result.h"

#include <gtest/gtest.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/steps/tf32_projection.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A 10 ms step: 4 ms of FP32 matrix math on CUDA cores, 6 ms of other work, on a GPU with TF32.
TraceSummary summaryWithFp32Math() {
  TraceSummary s;
  s.tensor_cores.fraction = 0.25;
  s.tensor_cores.unknown_fraction = 0.05;
  s.amdahl.device.name = "A100 SXM4";
  s.amdahl.device.fp32_tflops = 19.5;
  s.amdahl.device.tf32_tflops = 156;
  s.amdahl.window_ns = 10 * kMs;
  s.amdahl.parts = {{StepPartKind::kEligibleFp32Math, 4 * kMs, 0.4, 4.0}, {StepPartKind::kIdle, 6 * kMs, 0.6, 1.0}};
  s.amdahl.projected_speedup = 10.0 / 7.0;
  s.amdahl.ceiling = 10.0 / 6.0;
  OpRow gemm;
  gemm.op = "aten::mm";
  gemm.op_class = OpClass::kMatrix;
  gemm.precision = MathPrecision::kFp32Simt;
  gemm.time_ns = 12 * kMs;
  gemm.tf32_speedup = 3.0;
  gemm.work.flops = 1e12;
  GemmDims dims;
  dims.m = 4096;
  dims.n = 33278;
  dims.k = 1024;
  gemm.work.gemm = dims;
  s.op_performance.rows.push_back(gemm);
  s.tf32 = projectTf32(s.amdahl, s.op_performance);

  KernelRow kernel;
  kernel.name = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4";
  kernel.calls = 3;
  kernel.time_ns = 12 * kMs;
  kernel.verdict.tensor_core = TensorCoreUse::kNo;
  kernel.verdict.precision = MathPrecision::kFp32Simt;
  kernel.verdict.rule_id = "xmma-ffma-fp32";
  kernel.verdict.confidence = Confidence::kHigh;
  kernel.verdict.alignment = 4;
  kernel.performance.achieved_tflops = 12.5;
  s.kernels.push_back(kernel);

  ShapeCheck check;
  check.required_multiple = 8;
  check.misaligned = {{.dimension = "N", .value = 33278, .padded = 33280}};
  s.shape_checks.push_back(check);
  LayerRow layer;
  layer.layer = "decoder";
  layer.pass = trace::Phase::kForward;
  layer.ops = {"aten::linear"};
  layer.calls = 3;
  layer.time_ns = 12 * kMs;
  layer.eligible = true;
  layer.precision = MathPrecision::kFp32Simt;
  layer.shapes = {"[[4096, 1024], [33278, 1024]]"};
  layer.misaligned_checks = {0};
  layer.state = LayerState::kEligibleNotTensorCore;
  layer.what_if_amp_ns = 1.5 * kMs;
  s.layer_table.rows.push_back(layer);
  return s;
}

// TF32 speeds the 4 ms of FP32 math up 3x (the op's model) and leaves the rest: 10 / (6 + 4/3).
TEST(Tf32ProjectionTest, SpeedsUpOnlyTheFp32MathOnAGpuWithTf32) {
  const TraceSummary s = summaryWithFp32Math();
  ASSERT_TRUE(s.tf32.relevant);
  EXPECT_DOUBLE_EQ(s.tf32.matrix_speedup, 3.0);
  EXPECT_DOUBLE_EQ(s.tf32.projected_speedup, 10.0 / (6.0 + 4.0 / 3.0));
  AmdahlProjection volta = s.amdahl;
  volta.device.tf32_tflops = 0;  // no TF32 Tensor Cores: nothing to project
  EXPECT_FALSE(projectTf32(volta, s.op_performance).relevant);
  AmdahlProjection none;  // no projection (unknown device)
  EXPECT_FALSE(projectTf32(none, s.op_performance).relevant);
}

TEST(RankResultTest, KeepsTheRanksTensorCoreShareProjectionsAndFindings) {
  const TraceSummary s = summaryWithFp32Math();
  Recommendation amp;
  amp.rule = std::string(rule_ids::kEnableAmp);
  amp.target = "model";
  amp.estimated_gain_ns = 3 * kMs;
  amp.estimated_gain_pct = 30;
  amp.ops = {"decoder forward (aten::linear)"};
  amp.layers = {"decoder"};
  const RankResult r = rankResultOf(s, {amp}, "rank0.json", "rank0.json");
  const RankFindings& f = r.findings;
  EXPECT_EQ(f.tensor_core_share, 0.25);
  EXPECT_EQ(f.tensor_core_unknown_share, 0.05);
  EXPECT_EQ(f.amp_projected_speedup, 10.0 / 7.0);
  EXPECT_EQ(f.amp_ceiling, 10.0 / 6.0);
  EXPECT_EQ(f.amp_device, "A100 SXM4");
  EXPECT_EQ(f.tf32_projected_speedup, s.tf32.projected_speedup);
  EXPECT_EQ(f.tf32_matrix_speedup, 3.0);
  ASSERT_EQ(f.recommendations.size(), 1u);
  EXPECT_EQ(f.recommendations[0].estimated_gain_ns, 3 * kMs);
  // The op and layer lists stay with the rank's full analysis: its tables hold those rows.
  EXPECT_TRUE(f.recommendations[0].ops.empty());
  EXPECT_TRUE(f.recommendations[0].layers.empty());
}

TEST(RankResultTest, KeepsOneRowPerKernelNameLayerAndOpCallShape) {
  const RankResult r = rankResultOf(summaryWithFp32Math(), {}, "rank0.json", "rank0.json");
  const RankTables& t = r.tables;
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].rule, "xmma-ffma-fp32");
  EXPECT_EQ(t.kernels[0].tensor_core, TensorCoreUse::kNo);
  EXPECT_EQ(t.kernels[0].alignment, 4);
  EXPECT_EQ(t.kernels[0].performance.achieved_tflops, 12.5);
  ASSERT_EQ(t.layers.size(), 1u);
  ASSERT_EQ(t.layers[0].violations.size(), 1u);  // the shape check the row pointed at, copied
  EXPECT_EQ(t.layers[0].violations[0].misaligned[0].padded, 33280);
  EXPECT_EQ(t.layers[0].what_if_amp_ns, 1.5 * kMs);
  ASSERT_EQ(t.ops.size(), 1u);
  ASSERT_TRUE(t.ops[0].gemm.has_value());
  EXPECT_EQ(t.ops[0].gemm->n, 33278);
  EXPECT_EQ(t.ops[0].flops_per_call, 1e12);
}

// Without a device row there is no projection: unknown, with the reason; a CPU run has no Tensor
// Core share to give.
TEST(RankResultTest, AnUnknownProjectionSaysWhyAndACpuRunHasNoTensorCoreShare) {
  TraceSummary s;
  s.amdahl.note = "the device is unknown: name it with --gpu NAME";
  s.recorded_on_cpu = true;
  const RankResult r = rankResultOf(s, {}, "cpu.json", "cpu.json");
  EXPECT_FALSE(r.findings.amp_projected_speedup.has_value());
  EXPECT_FALSE(r.findings.amp_ceiling.has_value());
  EXPECT_EQ(r.findings.amp_note, "the device is unknown: name it with --gpu NAME");
  EXPECT_FALSE(r.findings.tensor_core_share.has_value());
  EXPECT_FALSE(r.findings.tf32_projected_speedup.has_value());
  EXPECT_TRUE(r.tables.recorded_on_cpu);
}

}  // namespace
}  // namespace ampscope::analyzer
