// Tests of analyzer/run_comparison.h: the change B made, read from two analyses; A's op rows
// paired with B's; each op's and the step's prediction scored against the measured speedup. On
// pairs of runs built here (FP32 against AMP, TF32 and padding on an A100) and on the shared
// ResNet-50 runs with 0 and 4 data-loader workers.

#include "analyzer/run_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../test_support.h"
#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "tests/analyzer/imported_trace.h"
#include "tests/analyzer/synthetic_run.h"

namespace ampscope::analyzer {
namespace {

using test::SyntheticOp;

constexpr const char* kFc1 = "[[256,1024],[4096,1024],[4096]]";
constexpr const char* kFc2 = "[[256,4096],[1024,4096],[1024]]";
constexpr const char* kFloat3 = "[\"float\",\"float\",\"float\"]";
constexpr const char* kHalf3 = "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]";
constexpr const char* kSgemm = "ampere_sgemm_128x64_tn";
constexpr const char* kFp16Gemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn";
constexpr const char* kTf32Gemm = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4>"
                                  "(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4::Params)";
constexpr const char* kRelu = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
                              "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
                              "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::"
                              "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
                              "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
                              "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
                              "const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)";

// Two linear layers and a ReLU: 2.1 GFLOP per GEMM, 150 us in FP32 (14 TFLOP/s of the A100's
// 19.5), 20 us on FP16 Tensor Cores, 60 us in TF32.
std::vector<SyntheticOp> mlp(const char* gemm, std::int64_t gemm_ns, bool half, std::int64_t relu_ns) {
  const char* dtypes = half ? kHalf3 : kFloat3;
  return {{"aten::linear", kFc1, dtypes, gemm, gemm_ns},
          {"aten::relu", "[[256,4096]]", half ? "[\"c10::Half\"]" : "[\"float\"]", kRelu, relu_ns},
          {"aten::linear", kFc2, dtypes, gemm, gemm_ns}};
}

TraceSummary summaryOf(trace::Trace trace) {
  const CorrelationCounts counts = test::correlateAsImported(trace);
  return summarizeTrace(trace, counts);
}

const OperatorComparison* findOp(const RunComparison& c, std::string_view name, std::string_view shapes) {
  for (const OperatorComparison& row : c.operators) {
    if (row.name == name && row.shapes == shapes) return &row;
  }
  return nullptr;
}

const OpRow* findRow(const TraceSummary& s, std::string_view op, std::string_view shapes) {
  for (const OpRow& row : s.op_performance.rows) {
    if (row.op == op && row.shapes == shapes) return &row;
  }
  return nullptr;
}

double measured(const TraceSummary& a, const TraceSummary& b) {
  return static_cast<double>(a.iterations.steady_mean_ns) / static_cast<double>(b.iterations.steady_mean_ns);
}

TEST(RunComparisonTest, Fp32AgainstAmpIsAnAmpChangeScoredOpByOpWithAsOwnPredictions) {
  const TraceSummary a = summaryOf(test::syntheticRun(mlp(kSgemm, 150'000, false, 20'000)));
  const TraceSummary b = summaryOf(test::syntheticRun(mlp(kFp16Gemm, 20'000, true, 11'000)));
  ASSERT_NE(a.device.spec, nullptr);
  ASSERT_FALSE(a.amdahl.parts.empty()) << a.amdahl.note;
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.change.kind, RunChange::kAmp) << c.change.reason;
  EXPECT_NE(c.change.reason.find("FP16/BF16"), std::string::npos) << c.change.reason;

  // The GEMMs pair by name and shapes although their kernels differ; each is scored against A's
  // own prediction for it.
  for (const char* shapes : {kFc1, kFc2}) {
    const OperatorComparison* op = findOp(c, "aten::linear", shapes);
    ASSERT_NE(op, nullptr) << shapes;
    EXPECT_EQ(op->pairing, OpPairing::kNameAndShapes);
    EXPECT_EQ(op->a_ns_per_step, 150'000);
    EXPECT_EQ(op->b_ns_per_step, 20'000);
    EXPECT_DOUBLE_EQ(op->speedup, 7.5);
    const OpRow* row = findRow(a, "aten::linear", shapes);
    ASSERT_NE(row, nullptr);
    ASSERT_EQ(row->amp, AmpChange::kTensorCores) << row->amp_note;
    ASSERT_TRUE(op->predicted_speedup.has_value());
    EXPECT_NEAR(*op->predicted_speedup, row->amp_speedup, 1e-9 * row->amp_speedup);
    EXPECT_GT(*op->predicted_speedup, 2.0);
  }
  const OperatorComparison* relu = findOp(c, "aten::relu", "[[256,4096]]");
  ASSERT_NE(relu, nullptr);
  EXPECT_NEAR(relu->speedup, 20.0 / 11.0, 1e-9);
  EXPECT_EQ(c.pairing.only_a, 0u);
  EXPECT_DOUBLE_EQ(c.pairing.a_time_paired, 1.0);

  // The step: A's AMP projection, held by the host where the replay says so.
  const double expected = a.amdahl.replay.done ? std::min(a.amdahl.projected_speedup, a.amdahl.replay.speedup)
                                               : a.amdahl.projected_speedup;
  ASSERT_TRUE(c.predicted_speedup.has_value());
  EXPECT_DOUBLE_EQ(*c.predicted_speedup, expected);
  EXPECT_DOUBLE_EQ(c.measured_speedup, measured(a, b));
  EXPECT_GT(c.measured_speedup, 1.5);
  ASSERT_TRUE(c.prediction_error.has_value());
  EXPECT_DOUBLE_EQ(*c.prediction_error, std::log(expected / c.measured_speedup));
}

TEST(RunComparisonTest, Fp32AgainstTf32IsScoredWithTheOpsTf32Predictions) {
  const TraceSummary a = summaryOf(test::syntheticRun(mlp(kSgemm, 150'000, false, 20'000)));
  const TraceSummary b = summaryOf(test::syntheticRun(mlp(kTf32Gemm, 60'000, false, 20'000)));
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.change.kind, RunChange::kTf32) << c.change.reason;
  const OperatorComparison* op = findOp(c, "aten::linear", kFc1);
  ASSERT_NE(op, nullptr);
  const OpRow* row = findRow(a, "aten::linear", kFc1);
  ASSERT_NE(row, nullptr);
  ASSERT_TRUE(op->predicted_speedup.has_value());
  EXPECT_NEAR(*op->predicted_speedup, row->tf32_speedup, 1e-9 * row->tf32_speedup);
  EXPECT_GT(row->tf32_speedup, 1.0);
  // TF32 leaves the ReLU alone: A's model predicts no change for it.
  const OperatorComparison* relu = findOp(c, "aten::relu", "[[256,4096]]");
  ASSERT_NE(relu, nullptr);
  ASSERT_TRUE(relu->predicted_speedup.has_value());
  EXPECT_DOUBLE_EQ(*relu->predicted_speedup, 1.0);
  // The step: Amdahl with the FP32 matrix part at the GEMMs' TF32 speedup, below that speedup.
  ASSERT_TRUE(c.predicted_speedup.has_value());
  EXPECT_GT(*c.predicted_speedup, 1.0);
  EXPECT_LT(*c.predicted_speedup, row->tf32_speedup);
  ASSERT_TRUE(c.prediction_error.has_value());
  EXPECT_DOUBLE_EQ(*c.prediction_error, std::log(*c.predicted_speedup / c.measured_speedup));
}

TEST(RunComparisonTest, ShapesRoundedUpToMultiplesOfEightAreAPaddingChangeAndPairByNameAndPass) {
  constexpr const char* kOdd = "[[256,1023],[4096,1023],[4096]]";
  constexpr const char* kAlign1 = "cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x3_nn_align1";
  const std::vector<SyntheticOp> odd = {{"aten::linear", kOdd, kHalf3, kAlign1, 45'000},
                                        {"aten::linear", kFc2, kHalf3, kFp16Gemm, 20'000}};
  const std::vector<SyntheticOp> padded = {{"aten::linear", kFc1, kHalf3, kFp16Gemm, 20'000},
                                           {"aten::linear", kFc2, kHalf3, kFp16Gemm, 20'000}};
  const TraceSummary a = summaryOf(test::syntheticRun(odd));
  const TraceSummary b = summaryOf(test::syntheticRun(padded));
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.change.kind, RunChange::kPadding) << c.change.reason;
  EXPECT_NE(c.change.reason.find("1023"), std::string::npos) << c.change.reason;
  const OperatorComparison* op = findOp(c, "aten::linear", kOdd);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->pairing, OpPairing::kPaddedShapes);
  EXPECT_EQ(op->b_shapes, kFc1);
  EXPECT_DOUBLE_EQ(op->speedup, 45.0 / 20.0);
  ASSERT_TRUE(op->predicted_speedup.has_value());
  EXPECT_DOUBLE_EQ(*op->predicted_speedup, 1.0);  // no per-op padding prediction in A's model
  EXPECT_EQ(c.pairing.by_padded_shapes, 1u);
  EXPECT_EQ(c.pairing.only_a + c.pairing.only_b, 0u);
  if (c.predicted_speedup) {
    ASSERT_TRUE(c.prediction_error.has_value());
    EXPECT_DOUBLE_EQ(*c.prediction_error, std::log(*c.predicted_speedup / c.measured_speedup));
  } else {
    EXPECT_FALSE(c.prediction_error.has_value());
    EXPECT_FALSE(c.predicted_from.empty());
  }
}

TEST(RunComparisonTest, ARunAgainstItselfIsAnUnknownChangeWithNoPredictionToScore) {
  const TraceSummary a = summaryOf(test::syntheticRun(mlp(kSgemm, 150'000, false, 20'000)));
  const RunComparison c = compareRuns(a, a);
  EXPECT_EQ(c.change.kind, RunChange::kUnknown);
  EXPECT_NE(c.change.reason.find("exposed data loading"), std::string::npos) << c.change.reason;
  EXPECT_DOUBLE_EQ(c.measured_speedup, 1.0);
  EXPECT_FALSE(c.predicted_speedup.has_value());
  EXPECT_FALSE(c.prediction_error.has_value());
  ASSERT_EQ(c.operators.size(), 3u);
  for (const OperatorComparison& op : c.operators) {
    EXPECT_EQ(op.pairing, OpPairing::kNameAndShapes);
    EXPECT_DOUBLE_EQ(op.speedup, 1.0);
    EXPECT_FALSE(op.predicted_speedup.has_value());
  }
}

TEST(RunComparisonTest, RunsOnDifferentGpusAreNotScored) {
  const TraceSummary a = summaryOf(test::syntheticRun(mlp(kSgemm, 150'000, false, 20'000)));
  const TraceSummary b = summaryOf(test::syntheticRun(mlp(kFp16Gemm, 20'000, true, 11'000), 6, "Tesla V100-SXM2-32GB"));
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.change.kind, RunChange::kUnknown);
  EXPECT_NE(c.change.reason.find("V100"), std::string::npos) << c.change.reason;
  EXPECT_FALSE(c.prediction_error.has_value());
}

TEST(RunComparisonTest, PredictionErrorReadsAsAPercentage) {
  EXPECT_NEAR(predictionErrorFraction(std::log(1.1)), 0.1, 1e-12);
  EXPECT_NEAR(predictionErrorFraction(std::log(0.8)), -0.2, 1e-12);
  EXPECT_STREQ(runChangeName(RunChange::kDataLoading), "data_loading");
  EXPECT_STREQ(opPairingName(OpPairing::kPaddedShapes), "padded_shapes");
}

TraceSummary sharedSummary(const std::string& path) {
  auto imported = import::importTrace(path);
  EXPECT_TRUE(imported.ok());
  const CorrelationCounts counts = correlate(*imported);
  return summarizeTrace(*imported, counts);
}

// The two shared ResNet-50 runs differ only in DataLoader workers (SOURCES.md).
TEST(RunComparisonSharedTraceTest, WorkersZeroToFourIsADataLoadingChangeWithTheSameOpsAtTheSameSpeed) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  const TraceSummary a = sharedSummary(workers0);
  const TraceSummary b = sharedSummary(workers4);
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.change.kind, RunChange::kDataLoading) << c.change.reason;
  EXPECT_NEAR(c.measured_speedup, 1.33, 0.01);
  ASSERT_TRUE(c.predicted_speedup.has_value());
  ASSERT_TRUE(a.data_pipeline.replay_if_hidden.done);
  EXPECT_DOUBLE_EQ(*c.predicted_speedup, a.data_pipeline.replay_if_hidden.speedup);
  ASSERT_TRUE(c.prediction_error.has_value());
  EXPECT_TRUE(std::isfinite(*c.prediction_error));
  EXPECT_DOUBLE_EQ(*c.prediction_error, std::log(*c.predicted_speedup / c.measured_speedup));
  // Hiding the loading leaves the kernels alone: within a quarter of the measured speedup.
  EXPECT_LT(std::abs(*c.prediction_error), 0.25);

  // Every convolution call shape of A finds its partner in B and, taken together, they run at the
  // same speed. A few shapes differ by up to 1.7x either way: cuDNN chose other algorithms in the
  // other run (other kernels, and other kernel counts per call).
  std::size_t convolutions = 0;
  std::size_t paired = 0;
  std::size_t near_one = 0;
  std::int64_t a_ns = 0;
  std::int64_t b_ns = 0;
  for (const OperatorComparison& op : c.operators) {
    if (op.name.find("convolution") == std::string::npos || op.a_ns_per_step == 0) continue;
    ++convolutions;
    if (op.pairing != OpPairing::kNameAndShapes) continue;
    ++paired;
    ASSERT_TRUE(op.predicted_speedup.has_value());
    EXPECT_DOUBLE_EQ(*op.predicted_speedup, 1.0);
    near_one += std::abs(op.speedup - 1.0) < 0.1;
    a_ns += op.a_ns_per_step;
    b_ns += op.b_ns_per_step;
  }
  EXPECT_GT(convolutions, 50u);
  EXPECT_EQ(paired, convolutions);
  EXPECT_GE(static_cast<double>(near_one), 0.85 * static_cast<double>(paired));
  ASSERT_GT(b_ns, 0);
  EXPECT_NEAR(static_cast<double>(a_ns) / static_cast<double>(b_ns), 1.0, 0.03);
  EXPECT_GT(c.pairing.a_time_paired, 0.9);
}

}  // namespace
}  // namespace ampscope::analyzer
