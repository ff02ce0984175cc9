// The memory projection scored on measured pairs: the trainer's CNN profiled in FP32, AMP-FP16 and
// FP16 with master weights (same seed, steps and batch), on the CPU and (label gpu) on a GPU. The
// FP32 profile's projection for each half-precision recipe is held to the other run's measured
// peak (the training steps' peak, allocated bytes as the GPU stores each dtype).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "../test_support.h"
#include "analyzer/run_analysis.h"

namespace ampscope {
namespace {

// The CNN trained and profiled in `precision`; nullopt (with the reason) where there is no usable GPU.
std::optional<analyzer::RunAnalysis> profiledCnn(const test::ScratchDir& dir, const std::string& precision,
                                                 std::string& no_gpu) {
  const std::string profile = dir.file("cnn-" + precision + ".sqlite");
  const std::string log = dir.file(precision + ".log");
  const std::string command = std::string(AMPSCOPE_BINARY) + " train --device " + TRAIN_DEVICE +
                              " --model cnn --data synthetic --steps 6 --batch 128 --seed 5 --workers 0 --precision " +
                              precision + " --profile " + profile + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string output = test::readFile(log);
  if (WEXITSTATUS(status) != 0 && output.find("--device cuda:") != std::string::npos) {
    no_gpu = output;
    return std::nullopt;
  }
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  auto run = analyzer::analyzeFile(profile);
  if (!run.ok()) {
    ADD_FAILURE() << run.error().message;
    return std::nullopt;
  }
  return std::move(run).value();
}

// How far the projection is from the measured peak, as a fraction of the measured peak.
double relativeError(std::int64_t projected, std::int64_t measured) {
  return std::fabs(static_cast<double>(projected) - static_cast<double>(measured)) / static_cast<double>(measured);
}

TEST(MemoryProjectionTest, Fp32ProfilesProjectionIsWithinAFifthOfTheHalfPrecisionRunsMeasuredPeak) {
  const test::ScratchDir dir;
  std::string no_gpu;
  const std::optional<analyzer::RunAnalysis> fp32_run = profiledCnn(dir, "fp32", no_gpu);
  if (!no_gpu.empty()) GTEST_SKIP() << "no usable GPU: " << no_gpu;
  const std::optional<analyzer::RunAnalysis> amp_run = profiledCnn(dir, "amp-fp16", no_gpu);
  const std::optional<analyzer::RunAnalysis> master_run = profiledCnn(dir, "fp16-master", no_gpu);
  ASSERT_TRUE(fp32_run && amp_run && master_run);
  const analyzer::RunAnalysis& fp32 = *fp32_run;
  const analyzer::RunAnalysis& amp = *amp_run;
  const analyzer::RunAnalysis& master = *master_run;
  ASSERT_NE(fp32.summary.memory.primaryDevice(), nullptr);
  const analyzer::AmpMemoryProjection& from_fp32 = fp32.summary.memory.amp;
  const analyzer::AmpMemoryProjection& master_from_fp32 = fp32.summary.memory.master_weights;
  ASSERT_TRUE(from_fp32.applies) << from_fp32.note;
  ASSERT_TRUE(master_from_fp32.applies) << master_from_fp32.note;
  EXPECT_TRUE(from_fp32.of_steps);
  // The half-precision runs project nothing: they already compute in half.
  EXPECT_FALSE(amp.summary.memory.amp.applies);
  EXPECT_FALSE(master.summary.memory.master_weights.applies);
  const std::int64_t amp_measured = amp.summary.memory.amp.measured_peak_allocated_bytes;
  const std::int64_t master_measured = master.summary.memory.master_weights.measured_peak_allocated_bytes;
  std::cout << "[ figures  ] " << TRAIN_DEVICE << " CNN batch 128: fp32 steps' peak "
            << from_fp32.measured_peak_allocated_bytes << " B; amp-fp16 measured " << amp_measured << " B, projected "
            << from_fp32.projected_peak_allocated_bytes << " B (error "
            << relativeError(from_fp32.projected_peak_allocated_bytes, amp_measured) << "); fp16-master measured "
            << master_measured << " B, projected " << master_from_fp32.projected_peak_allocated_bytes << " B (error "
            << relativeError(master_from_fp32.projected_peak_allocated_bytes, master_measured) << ")\n";
  EXPECT_LT(relativeError(from_fp32.projected_peak_allocated_bytes, amp_measured), 0.20);
  EXPECT_LT(relativeError(master_from_fp32.projected_peak_allocated_bytes, master_measured), 0.20);
}

}  // namespace
}  // namespace ampscope
