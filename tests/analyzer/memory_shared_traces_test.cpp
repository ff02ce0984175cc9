// The memory analysis on real traces (../shared/traces): the V100 ResNet-50 traces' [memory]
// events in the 2021 form (sizes only), whose totals are reconstructed, checked against a running
// sum computed here from the file with another JSON parser; the H100 ViT trace's newer form, whose
// peak is the allocator's largest recorded total.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../test_support.h"
#include "gunzip_file.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer {
namespace {

// The GPU's [memory] events of the file in time order (stable, as the file lists equal times).
std::vector<nlohmann::json> gpuMemoryEvents(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(test::gunzipFile(path));
  std::vector<nlohmann::json> events;
  for (const auto& event : doc.at("traceEvents")) {
    if (event.value("name", "") == "[memory]" && event.at("args").value("Device Type", -1) == 1) events.push_back(event);
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const nlohmann::json& a, const nlohmann::json& b) { return a.at("ts").get<double>() < b.at("ts").get<double>(); });
  return events;
}

std::int64_t sum(const std::vector<CategoryBytes>& parts, bool with_slack) {
  std::int64_t total = 0;
  for (const CategoryBytes& part : parts) {
    if (with_slack || part.category != MemoryCategory::kAllocatorSlack) total += part.bytes;
  }
  return total;
}

class ResNetMemoryTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ResNetMemoryTest, PeakIsTheRunningSumOfTheSizesFromItsLowest) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, GetParam());
  // By hand: the running sum of Bytes, shifted up by its lowest value when that is below zero.
  std::int64_t running = 0, lowest = 0, highest = 0;
  const std::vector<nlohmann::json> events = gpuMemoryEvents(path);
  for (const nlohmann::json& e : events) {
    running += e.at("args").at("Bytes").get<std::int64_t>();
    lowest = std::min(lowest, running);
    highest = std::max(highest, running);
  }
  auto run = analyzeFile(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const MemoryAnalysis& memory = run->summary.memory;
  const DeviceMemory* gpu = memory.primaryDevice();
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->kind, trace::DeviceKind::kGpu);
  EXPECT_EQ(gpu->events, events.size());
  EXPECT_EQ(gpu->totals, MemoryTotals::kReconstructed);
  EXPECT_EQ(gpu->matching, BlockMatching::kBySize);
  EXPECT_EQ(gpu->before_recording_bytes, -lowest);
  EXPECT_EQ(gpu->peak_allocated_bytes, highest - lowest);
  EXPECT_EQ(gpu->peak_reserved_bytes, -1);
  EXPECT_EQ(gpu->capacity_bytes, 34084028416u);  // deviceProperties' totalGlobalMem of device 0
  // What is live at the peak accounts for all of it, and the layers name ResNet's operators.
  EXPECT_EQ(sum(gpu->peak_by_category, false), gpu->peak_allocated_bytes);
  std::int64_t by_layer = 0;
  for (const LayerBytes& layer : gpu->peak_by_layer) by_layer += layer.bytes;
  EXPECT_LE(by_layer, gpu->peak_allocated_bytes);
  ASSERT_FALSE(gpu->peak_by_layer.empty());
  EXPECT_EQ(gpu->peak_by_layer.front().layer, "aten::conv2d");
  EXPECT_EQ(gpu->peak_by_layer.front().pass, trace::Phase::kForward);
  // What a step keeps for its backward is live at once at the end of its forward: never above the peak.
  for (const StepMemory& step : gpu->steps) EXPECT_LE(step.saved_for_backward_bytes, gpu->peak_allocated_bytes);
  // The peak falls in a training step, between its forward and its backward: activations.
  EXPECT_GE(gpu->peak_step, 0);
  EXPECT_EQ(gpu->peak_by_category.front().category, MemoryCategory::kActivations);
  // An FP32 run: AMP halves the activations of convolutions and the ops after them.
  ASSERT_TRUE(memory.amp.applies) << memory.amp.note;
  EXPECT_LT(memory.amp.projected_peak_allocated_bytes, gpu->peak_allocated_bytes * 6 / 10);
  EXPECT_GT(memory.amp.projected_peak_allocated_bytes, gpu->peak_allocated_bytes * 4 / 10);
  EXPECT_EQ(memory.amp.batch, 32);
  ASSERT_TRUE(memory.amp.batch_that_fits && memory.amp.amp_batch_that_fits);
  EXPECT_GT(*memory.amp.amp_batch_that_fits, *memory.amp.batch_that_fits);
}

INSTANTIATE_TEST_SUITE_P(Workers, ResNetMemoryTest,
                         ::testing::Values("kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz",
                                           "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz"));

TEST(VitMemoryTest, PeakIsTheLargestTotalAllocatedTheAllocatorRecorded) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-h100-vit-memory/falconsai_nsfw_vit_bf16.json.gz");
  std::int64_t largest_allocated = 0, largest_reserved = 0;
  for (const nlohmann::json& e : gpuMemoryEvents(path)) {
    largest_allocated = std::max(largest_allocated, e.at("args").at("Total Allocated").get<std::int64_t>());
    largest_reserved = std::max(largest_reserved, e.at("args").at("Total Reserved").get<std::int64_t>());
  }
  auto run = analyzeFile(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const DeviceMemory* gpu = run->summary.memory.primaryDevice();
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->totals, MemoryTotals::kRecorded);
  EXPECT_EQ(gpu->matching, BlockMatching::kByAddress);
  EXPECT_EQ(gpu->peak_allocated_bytes, largest_allocated);
  EXPECT_EQ(gpu->peak_reserved_bytes, largest_reserved);
  // The weights were loaded before the recording: the largest part of the peak no event explains.
  EXPECT_EQ(gpu->peak_by_category.front().category, MemoryCategory::kBeforeRecording);
  EXPECT_EQ(sum(gpu->peak_by_category, false), gpu->peak_allocated_bytes);
  EXPECT_GT(sum(gpu->peak_by_category, true), gpu->peak_allocated_bytes);  // the allocator's slack on top
  // An inference run in BF16: nothing is kept for a backward, and AMP is already on.
  for (const StepMemory& step : gpu->steps) EXPECT_EQ(step.saved_for_backward_bytes, 0);
  EXPECT_FALSE(run->summary.memory.amp.applies);
  EXPECT_EQ(run->summary.memory.not_understood.size(), 0u);
}

}  // namespace
}  // namespace ampscope::analyzer
