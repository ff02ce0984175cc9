#include "analyzer/summary/trace_summary.h"

#include <gtest/gtest.h>

#include "analyzer/correlate/correlator.h"
#include "tests/analyzer/trainer_cpu_trace.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TraceSummary summarizeTrainerCpuTrace() {
  trace::Trace trace = test::trainerCpuTrace();
  const CorrelationCounts counts = correlate(trace);
  return summarizeTrace(trace, counts);
}

const LayerRow* pass(const TraceSummary& s, std::string_view layer, trace::Phase phase) {
  for (const LayerRow& p : s.layer_table.rows) {
    if (p.layer == layer && p.pass == phase) return &p;
  }
  return nullptr;
}

TEST(TraceSummaryTest, TrainerCpuProfileGivesPerLayerForwardAndBackwardTimes) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  EXPECT_EQ(s.correlation.kernels_attributed_to_op, s.correlation.kernels);
  // Model order: each layer's forward then backward, layers as the forward pass ran them.
  std::vector<std::string> order;
  EXPECT_FALSE(s.layer_table.groups_operators);
  for (const LayerRow& p : s.layer_table.rows) order.push_back(p.layer + " " + trace::phaseName(p.pass));
  EXPECT_EQ(order, (std::vector<std::string>{"fc1 forward", "fc1 backward", "act1 forward", "act1 backward",
                                              "fc2 forward", "fc2 backward"}));
  const LayerRow* fc1_forward = pass(s, "fc1", trace::Phase::kForward);
  ASSERT_NE(fc1_forward, nullptr);
  EXPECT_EQ(fc1_forward->calls, 6u);
  EXPECT_EQ(fc1_forward->kernels, 6u);
  EXPECT_EQ(fc1_forward->time_ns, 6 * 8 * kMs / 10);
  const LayerRow* fc1_backward = pass(s, "fc1", trace::Phase::kBackward);
  ASSERT_NE(fc1_backward, nullptr);
  EXPECT_EQ(fc1_backward->calls, 6u);
  EXPECT_EQ(fc1_backward->kernels, 12u);  // the data and the weight GEMM
  EXPECT_EQ(fc1_backward->time_ns, 6 * 13 * kMs / 10);
  EXPECT_EQ(pass(s, "act1", trace::Phase::kBackward)->time_ns, 6 * 3 * kMs / 10);
  for (const LayerRow& p : s.layer_table.rows) {
    EXPECT_EQ(p.tensor_core_time_ns, 0) << p.layer;
    EXPECT_EQ(p.state, LayerState::kHost) << p.layer;
  }
}

TEST(TraceSummaryTest, TrainerCpuProfileFindsItsStepsAndExposedDataLoading) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  EXPECT_EQ(s.iterations.iterations.size(), static_cast<std::size_t>(test::kTrainerSteps));
  EXPECT_EQ(s.iterations.steady_mean_ns, test::kTrainerStepNs);
  // Loading runs while no host op does: all of it is exposed.
  EXPECT_EQ(s.data_pipeline.exposed_ns_per_iteration, 2 * kMs);
  EXPECT_DOUBLE_EQ(s.data_pipeline.exposed_fraction, 0.2);
}

// Each device's busy time is the union of its own kernels over its streams; the trace's is the
// union over every device.
TEST(TraceSummaryTest, EachDeviceIsBusyForTheUnionOfItsKernels) {
  trace::Trace trace;
  for (std::uint32_t id : {0u, 1u}) {
    trace::Device gpu;
    gpu.id = id;
    gpu.name = trace.strings.intern("NVIDIA H100 80GB HBM3");
    trace.devices.push_back(gpu);
  }
  const auto kernel = [&](std::uint32_t device, std::int32_t stream, std::int64_t start, std::int64_t end) {
    trace::Kernel k;
    k.device = device;
    k.stream = stream;
    k.start_ns = start;
    k.end_ns = end;
    k.name = trace.strings.intern("void at::native::vectorized_elementwise_kernel<4>()");
    trace.kernels.push_back(k);
  };
  kernel(0, 7, 1'000, 2'000);
  kernel(0, 8, 1'500, 3'000);  // overlaps the one before on another stream
  kernel(0, 7, 5'000, 6'000);
  kernel(1, 7, 1'000, 4'000);
  trace.sortByTime();
  const CorrelationCounts counts = correlate(trace);
  const TraceSummary s = summarizeTrace(trace, counts);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].kernel_time_ns, 3'500);
  EXPECT_EQ(s.devices[0].busy_ns, 3'000);
  EXPECT_EQ(s.devices[1].busy_ns, 3'000);
  EXPECT_EQ(s.gpu_busy_ns, 4'000);
}

TEST(TraceSummaryTest, TrainerCpuProfileMakesNoTensorCoreClaims) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  EXPECT_TRUE(s.recorded_on_cpu);
  ASSERT_FALSE(s.devices.empty());
  EXPECT_EQ(s.devices[0].kind, trace::DeviceKind::kCpu);
  EXPECT_EQ(s.tensor_cores.time_ns, 0);
  EXPECT_TRUE(s.tensor_cores.by_precision.empty());
  EXPECT_TRUE(s.amdahl.parts.empty());
  EXPECT_NE(s.amdahl.note.find("recorded on the CPU"), std::string::npos);
  for (const GroupTime& op : s.operators) {
    for (const KernelTime& k : op.kernel_times) {
      EXPECT_EQ(k.verdict.tensor_core, TensorCoreUse::kHost) << k.name;
      EXPECT_FALSE(k.verdict.tensor_core) << k.name;
    }
  }
}

TEST(TraceSummaryTest, TrainerLayerOpsAreNamedByLayerOpAndPassAmongTheOperators) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  std::vector<std::string> names;
  for (const GroupTime& op : s.operators) names.push_back(op.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "fc1 linear backward"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "optimizer"), names.end());
  ASSERT_FALSE(s.layers.empty());
  EXPECT_EQ(s.layers[0].name, "fc1");
}

TEST(TraceSummaryTest, TrainerLinearLayersGetTheirMultipleOfEightChecks) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  // One check per layer: its forward and backward ranges share the GEMM sizes.
  ASSERT_EQ(s.shape_checks.size(), 2u);
  const ShapeCheck& fc1 = s.shape_checks[0];
  EXPECT_EQ(fc1.op, "linear");
  EXPECT_EQ(fc1.layer, "fc1");
  EXPECT_EQ(fc1.calls, 12u);
  EXPECT_EQ(fc1.dims.m, 64);
  EXPECT_EQ(fc1.dims.n, 100);
  EXPECT_EQ(fc1.dims.k, 784);
  EXPECT_EQ(fc1.precision, MathPrecision::kFp16);
  EXPECT_EQ(fc1.required_multiple, 8);
  ASSERT_EQ(fc1.misaligned.size(), 1u);
  EXPECT_EQ(fc1.misaligned[0].dimension, "N");
  EXPECT_EQ(fc1.misaligned[0].padded, 104);
  EXPECT_EQ(fc1.tensor_core_time_ns, 0);
  const ShapeCheck& fc2 = s.shape_checks[1];
  EXPECT_EQ(fc2.layer, "fc2");
  EXPECT_EQ(fc2.misaligned.size(), 2u);  // N = 10 and K = 100
}

TEST(TraceSummaryTest, TrainerCpuProfileCarriesNumericsAndWhatWasLost) {
  const TraceSummary s = summarizeTrainerCpuTrace();
  const AmpNumerics& n = s.amp_numerics;
  EXPECT_TRUE(n.recorded);
  EXPECT_EQ(n.steps, static_cast<std::uint64_t>(test::kTrainerSteps));
  EXPECT_DOUBLE_EQ(n.loss_first, 2.3);
  EXPECT_NEAR(n.loss_last, 1.8, 1e-12);
  EXPECT_EQ(n.loss_scale_max, 65536);
  EXPECT_EQ(n.loss_scale_final, 32768);
  EXPECT_EQ(n.skipped_steps, 1u);
  ASSERT_EQ(n.tensors.size(), 2u);
  EXPECT_EQ(n.tensors[0].tensor, "fc1.weight");
  EXPECT_DOUBLE_EQ(n.tensors[0].all.underflowShare(), 0.025);
  EXPECT_DOUBLE_EQ(n.tensors[0].recent.underflowShare(), 0.05);
  EXPECT_NEAR(n.tensors[0].all.zeroShare(), 1000.0 / 78'400, 1e-12);
  EXPECT_EQ(s.import_stats.lost.at("NVTX ranges still open at exit"), 2u);
  EXPECT_EQ(s.import_stats.not_understood.at(
                "ampscope trainer layer ranges whose text is not understood (kept as annotations)"),
            1u);
}

}  // namespace
}  // namespace ampscope::analyzer
