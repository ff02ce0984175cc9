// A trace without iterations (one forward pass, inference, a trimmed window) still gets per-layer
// findings and recommendations, with gains over its window of GPU work.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyzer/core/rule_ids.h"
#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;

struct Layer {
  const char* module;  // the nn.Module frame, as Kineto names it
  const char* op;
  const char* shapes;
  const char* arguments;  // Kineto's "Concrete Inputs"
  const char* kernel;
  std::int64_t kernel_ns;
};

// One FP32 forward pass of a small CNN on an RTX 2070 (7.5 TFLOP/s FP32): two convolutions and
// three linear layers, each in its module frame, each op launching one CUDA-core kernel.
trace::Trace forwardPassOnly() {
  const Layer layers[] = {
      {"nn.Module: Conv2d_0", "aten::conv2d", "[[32,3,32,32],[16,3,3,3],[16]]", R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])",
       "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>()", 50 * kUs},
      {"nn.Module: Conv2d_1", "aten::conv2d", "[[32,16,32,32],[32,16,3,3],[32]]", R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])",
       "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>()", 150 * kUs},
      {"nn.Module: Linear_0", "aten::linear", "[[32,32768],[512,32768],[512]]", "", "volta_sgemm_128x64_tn", 300 * kUs},
      {"nn.Module: Linear_1", "aten::linear", "[[32,512],[256,512],[256]]", "", "volta_sgemm_64x64_tn", 20 * kUs},
      {"nn.Module: Linear_2", "aten::linear", "[[32,256],[10,256],[10]]", "", "volta_sgemm_32x32_tn", 10 * kUs},
  };
  trace::Trace trace;
  trace::Device gpu;
  gpu.name = trace.strings.intern("NVIDIA GeForce RTX 2070");
  gpu.compute_major = 7;
  gpu.compute_minor = 5;
  gpu.sm_count = 36;
  trace.devices.push_back(gpu);
  const trace::Index thread = trace.threadIndex(9, 9);
  std::int64_t now = 100 * kUs;
  std::int64_t gpu_free = 0;
  std::uint64_t correlation = 1;
  for (const Layer& layer : layers) {
    trace::Range frame;
    frame.name = trace.strings.intern(layer.module);
    frame.kind = trace::RangeKind::kPython;
    frame.thread = thread;
    frame.start_ns = now;
    frame.end_ns = now + 40 * kUs;
    trace.ranges.push_back(frame);
    trace::Range op;
    op.name = trace.strings.intern(layer.op);
    op.thread = thread;
    op.start_ns = now + 5 * kUs;
    op.end_ns = now + 35 * kUs;
    op.shapes = trace.strings.intern(layer.shapes);
    op.dtypes = trace.strings.intern(R"(["float","float","float"])");
    op.arguments = trace.strings.intern(layer.arguments);
    trace.ranges.push_back(op);
    trace::LaunchCall call;
    call.start_ns = now + 10 * kUs;
    call.end_ns = now + 15 * kUs;
    call.correlation_id = correlation;
    call.name = trace.strings.intern("cudaLaunchKernel");
    call.thread = thread;
    trace.launches.push_back(call);
    trace::Kernel kernel;
    kernel.start_ns = std::max(call.end_ns + 3 * kUs, gpu_free);
    kernel.end_ns = kernel.start_ns + layer.kernel_ns;
    kernel.correlation_id = correlation++;
    kernel.name = trace.strings.intern(layer.kernel);
    kernel.grid = {64, 1, 1};
    kernel.block = {256, 1, 1};
    trace.kernels.push_back(kernel);
    gpu_free = kernel.end_ns;
    now += 40 * kUs;
  }
  trace.sortByTime();
  import::normaliseRanges(trace);
  return trace;
}

TEST(NoStepsTest, AForwardPassAloneGetsAmpAdviceNamingEachEligibleLayer) {
  const RunAnalysis run = analyzeTrace(forwardPassOnly(), "forward-pass");
  EXPECT_TRUE(run.summary.iterations.iterations.empty());
  EXPECT_FALSE(run.summary.amdahl.per_step);
  EXPECT_GT(run.summary.amdahl.window_ns, 0);
  const auto amp = std::find_if(run.recommendations.begin(), run.recommendations.end(),
                                [](const Recommendation& r) { return r.rule == rule_ids::kEnableAmp; });
  ASSERT_NE(amp, run.recommendations.end());
  EXPECT_GT(amp->estimated_gain_ns, 0);
  EXPECT_NE(amp->evidence.find("in the trace's"), std::string::npos) << amp->evidence;  // a window, not a step
  EXPECT_NE(amp->evidence.find("5 layer x pass rows are eligible for Tensor Cores and not using them"), std::string::npos)
      << amp->evidence;
  // Its layers, heaviest first, named from the module frames.
  ASSERT_EQ(amp->ops.size(), 5u);
  EXPECT_TRUE(amp->ops[0].starts_with("Linear_0")) << amp->ops[0];
  for (const char* layer : {"Conv2d_0", "Conv2d_1", "Linear_0", "Linear_1", "Linear_2"}) {
    EXPECT_EQ(std::count_if(amp->ops.begin(), amp->ops.end(), [&](const std::string& op) { return op.starts_with(layer); }), 1)
        << layer;
  }
  // The layer table says the same per layer.
  int eligible_off = 0;
  for (const LayerRow& row : run.summary.layer_table.rows) eligible_off += row.state == LayerState::kEligibleNotTensorCore;
  EXPECT_EQ(eligible_off, 5);
  // The odd sizes of the classifier (10 outputs, 3 input channels) are findings too.
  EXPECT_TRUE(std::any_of(run.recommendations.begin(), run.recommendations.end(), [](const Recommendation& r) {
    return r.rule == rule_ids::kPadDimensions && r.target == "size 10";
  }));
}

}  // namespace
}  // namespace ampscope::analyzer
