// Diff tests: a small trace that this file writes (and keeps checked in beside it) goes through
// the whole pipeline as `ampscope report` runs it: import, normalise, correlate, analyze,
// recommend, write. The report's kernels.csv, layers.csv and recommendations.csv must equal the
// expected files under tests/golden/. A change that moves a number shows up as a diff to review.
//
// To accept a deliberate change, regenerate the trace and the expected files, then read the diff:
//   AMPSCOPE_UPDATE_GOLDEN=1 build/tests/golden/golden_tests && git diff tests/golden

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "../test_support.h"
#include "analyzer/run_analysis.h"
#include "reports/report_writer.h"

namespace ampscope {
namespace {

const std::filesystem::path kGoldenDir = AMPSCOPE_GOLDEN_DIR;

bool updating() {
  const char* value = std::getenv("AMPSCOPE_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

// A Kineto trace of an FP32 training loop on an A100: four profiler steps (the first a warm-up),
// each loading a batch while the GPU idles, then a linear layer whose vocabulary (33,278) is off
// the multiple of 8, an aligned linear layer, and a ReLU. Times in microseconds, as Kineto writes.
std::string smallTrainingTrace() {
  std::string events;
  std::int64_t correlation = 100;
  const auto event = [&](std::string_view cat, std::string_view name, double ts, double dur, int tid,
                         const std::string& args) {
    events += fmt::format(R"({}{{"ph": "X", "cat": "{}", "name": "{}", "pid": 1, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
                          events.empty() ? "\n    " : ",\n    ", cat, name, tid, ts, dur, args);
  };
  // One operator that launches one kernel: the op on the host thread, the launch inside it, the
  // kernel on stream 7 once the launch returns.
  const auto launch = [&](double op_start, double op_dur, std::string_view kernel, double kernel_start,
                          double kernel_dur) {
    ++correlation;
    event("cuda_runtime", "cudaLaunchKernel", op_start + 2, 5, 10, fmt::format(R"("correlation": {})", correlation));
    event("kernel", kernel, kernel_start, kernel_dur, 7,
          fmt::format(R"("device": 0, "stream": 7, "correlation": {}, "grid": [120, 1, 1], "block": [256, 1, 1])",
                      correlation));
    (void)op_dur;
  };
  constexpr double kStep = 1000;
  for (int step = 0; step < 4; ++step) {
    const double t = 1000 + step * kStep;
    event("user_annotation", fmt::format("ProfilerStep#{}", step + 1), t, kStep - 1, 10, "");
    event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 1, 200, 10, "");
    event("cpu_op", "aten::linear", t + 210, 40, 10,
          R"("Input Dims": [[64, 1023], [33278, 1023], [33278]], "Input type": ["float", "float", "float"])");
    event("cpu_op", "aten::addmm", t + 215, 30, 10,
          R"("Input Dims": [[33278], [64, 1023], [1023, 33278]], "Input type": ["float", "float", "float"])");
    launch(t + 215, 30, "ampere_sgemm_128x64_tn", t + 230, 420);
    event("cpu_op", "aten::linear", t + 260, 40, 10,
          R"("Input Dims": [[64, 1024], [1024, 1024], [1024]], "Input type": ["float", "float", "float"])");
    event("cpu_op", "aten::addmm", t + 265, 30, 10,
          R"("Input Dims": [[1024], [64, 1024], [1024, 1024]], "Input type": ["float", "float", "float"])");
    launch(t + 265, 30, "ampere_sgemm_64x64_nn", t + 652, 60);
    event("cpu_op", "aten::relu", t + 310, 20, 10, R"("Input Dims": [[64, 1024]], "Input type": ["float"])");
    launch(t + 310, 20,
           "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>",
           t + 714, 30);
  }
  return fmt::format(R"({{
  "schemaVersion": 1,
  "deviceProperties": [{{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42314694656,
                         "computeMajor": 8, "computeMinor": 0, "numSms": 108}}],
  "traceEvents": [{}
  ]
}}
)",
                     events);
}

class GoldenReportTest : public ::testing::Test {
 protected:
  // The file compared with its expected copy, or written there when updating.
  void expectGolden(const std::string& actual, const std::filesystem::path& expected_path) {
    if (updating()) {
      std::filesystem::create_directories(expected_path.parent_path());
      std::ofstream(expected_path, std::ios::binary) << actual;
      return;
    }
    const std::string expected = test::readFile(expected_path.string());
    ASSERT_FALSE(expected.empty()) << expected_path << " is missing; regenerate with AMPSCOPE_UPDATE_GOLDEN=1";
    EXPECT_EQ(actual, expected) << expected_path << " differs; if the change is meant, regenerate it with "
                                << "AMPSCOPE_UPDATE_GOLDEN=1 and review the diff";
  }

  test::ScratchDir scratch_;
};

TEST_F(GoldenReportTest, SmallTrainingTraceGivesTheExpectedKernelLayerAndRecommendationTables) {
  const std::filesystem::path dir = kGoldenDir / "small_training";
  const std::filesystem::path trace_path = dir / "trace.json";
  // The checked-in trace is the one this file writes: nobody edits it by hand.
  expectGolden(smallTrainingTrace(), trace_path);

  auto run = analyzer::analyzeFile(trace_path.string());
  ASSERT_TRUE(run) << run.error().message;
  const std::string out = scratch_.file("report");
  const trace::Status written = reports::writeReport(run->summary, run->recommendations, out);
  ASSERT_TRUE(written) << written.error().message;
  for (const char* table : {"kernels.csv", "layers.csv", "recommendations.csv"}) {
    expectGolden(test::readFile(out + "/" + table), dir / table);
  }
}

}  // namespace
}  // namespace ampscope
