// Golden case small_training: a Kineto trace of an FP32 training loop without module frames,
// through `ampscope report`; every report file compared with tests/golden/small_training/.

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "golden_fixture.h"
#include "kineto_trace_writer.h"

namespace ampscope::golden {
namespace {

// An FP32 training loop on an A100: four profiler steps (the first a warm-up), each loading a
// batch while the GPU idles, then a linear layer whose vocabulary (33,278) is off the multiple of
// 8, an aligned linear layer, and a ReLU. Times in microseconds, as Kineto writes them.
std::string smallTrainingTrace() {
  KinetoTraceWriter trace;
  constexpr int kHost = 10;
  constexpr double kStep = 1000;
  for (int step = 0; step < 4; ++step) {
    const double t = 1000 + step * kStep;
    trace.event("user_annotation", fmt::format("ProfilerStep#{}", step + 1), t, kStep - 1, kHost);
    trace.event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 1, 200, kHost);
    trace.event("cpu_op", "aten::linear", t + 210, 40, kHost,
                R"("Input Dims": [[64, 1023], [33278, 1023], [33278]], "Input type": ["float", "float", "float"])");
    trace.event("cpu_op", "aten::addmm", t + 215, 30, kHost,
                R"("Input Dims": [[33278], [64, 1023], [1023, 33278]], "Input type": ["float", "float", "float"])");
    trace.launch(t + 217, kHost, "ampere_sgemm_128x64_tn", t + 230, 420);
    trace.event("cpu_op", "aten::linear", t + 260, 40, kHost,
                R"("Input Dims": [[64, 1024], [1024, 1024], [1024]], "Input type": ["float", "float", "float"])");
    trace.event("cpu_op", "aten::addmm", t + 265, 30, kHost,
                R"("Input Dims": [[1024], [64, 1024], [1024, 1024]], "Input type": ["float", "float", "float"])");
    trace.launch(t + 267, kHost, "ampere_sgemm_64x64_nn", t + 652, 60);
    trace.event("cpu_op", "aten::relu", t + 310, 20, kHost, R"("Input Dims": [[64, 1024]], "Input type": ["float"])");
    trace.launch(t + 312, kHost,
                 "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>",
                 t + 714, 30);
  }
  return trace.document(R"("schemaVersion": 1,
  )" + deviceProperties("NVIDIA A100-SXM4-40GB", 42314694656, 8, 0, 108));
}

TEST(GoldenReportTest, SmallTrainingTraceGivesTheExpectedReport) {
  const std::filesystem::path dir = kGoldenDir / "small_training";
  // The checked-in trace is the one this file writes: nobody edits it by hand.
  expectGolden(smallTrainingTrace(), dir / "trace.json");
  test::ScratchDir scratch;
  expectReportMatchesGolden(dir, {"trace.json"}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
