#include "analyzer/steps/data_pipeline.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/steps/gpu_activity.h"
#include "tests/analyzer/imported_trace.h"

namespace ampscope::analyzer {
namespace {

class DataPipelineTest : public ::testing::Test {
 protected:
  void addRange(const char* name, std::int64_t start, std::int64_t end) {
    trace::Range range;
    range.name = trace_.strings.intern(name);
    range.start_ns = start;
    range.end_ns = end;
    range.thread = trace_.threadIndex(1, 1);
    trace_.ranges.push_back(range);
  }
  void addKernel(std::int64_t start, std::int64_t end) {
    trace::Kernel kernel;
    kernel.start_ns = start;
    kernel.end_ns = end;
    trace_.kernels.push_back(kernel);
  }
  DataPipelineExposure measure() {
    trace_.sortByTime();
    test::correlateAsImported(trace_);
    iterations_ = findIterations(trace_);
    return measureDataPipeline(trace_, iterations_);
  }
  trace::Trace trace_;
  IterationSummary iterations_;
};

TEST_F(DataPipelineTest, OnlyLoadingWhileTheGpuIdlesIsExposed) {
  // Three 1000 ns steps; each loads data for 400 ns. The GPU runs the previous step's work for
  // the first 300 ns of each load, so 100 ns per step are exposed.
  for (std::int64_t step = 0; step < 3; ++step) {
    const std::int64_t base = step * 1000;
    addRange(("ProfilerStep#" + std::to_string(step)).c_str(), base, base + 1000);
    addRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", base, base + 400);
    addKernel(base, base + 300);
    addKernel(base + 400, base + 900);
  }
  const DataPipelineExposure exposure = measure();
  EXPECT_EQ(exposure.exposed_ns, (std::vector<std::int64_t>{100, 100, 100}));
  EXPECT_EQ(exposure.exposed_ns_per_iteration, 100);
  EXPECT_EQ(exposure.loader_ns_per_iteration, 400);
  EXPECT_DOUBLE_EQ(exposure.exposed_fraction, 0.1);
  EXPECT_NEAR(exposure.speedup_if_hidden, 1000.0 / 900.0, 1e-12);
}

TEST_F(DataPipelineTest, LoadingHiddenBehindGpuWorkCostsNothing) {
  for (std::int64_t step = 0; step < 3; ++step) {
    const std::int64_t base = step * 1000;
    addRange(("ProfilerStep#" + std::to_string(step)).c_str(), base, base + 1000);
    addRange("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", base, base + 400);
    addKernel(base, base + 1000);
  }
  const DataPipelineExposure exposure = measure();
  EXPECT_EQ(exposure.exposed_ns_per_iteration, 0);
  EXPECT_EQ(exposure.loader_ns_per_iteration, 400);
  EXPECT_DOUBLE_EQ(exposure.speedup_if_hidden, 1.0);
}

TEST(GpuActivityTest, BusyTimeWithinAWindowCountsOverlappingStreamsOnce) {
  trace::Trace trace;
  for (auto [start, end] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 10}, {5, 20}, {30, 40}, {50, 60}}) {
    trace::Kernel kernel;
    kernel.start_ns = start;
    kernel.end_ns = end;
    trace.kernels.push_back(kernel);
  }
  const GpuActivity gpu(trace);
  EXPECT_EQ(gpu.busyTotal(), 40);
  EXPECT_EQ(gpu.busyWithin(0, 100), 40);
  EXPECT_EQ(gpu.busyWithin(15, 35), 10);  // 15..20 and 30..35
  EXPECT_EQ(gpu.busyWithin(20, 30), 0);
  EXPECT_EQ(gpu.busyWithin(55, 56), 1);
  EXPECT_EQ(gpu.busyWithin(70, 80), 0);
}

// The two shared ResNet-50 runs differ only in DataLoader workers (SOURCES.md).
DataPipelineExposure exposureOf(const std::string& path) {
  auto imported = import::importTrace(path);
  EXPECT_TRUE(imported.ok());
  correlate(*imported);
  return measureDataPipeline(*imported, findIterations(*imported));
}

TEST(DataPipelineSharedTraceTest, WorkersZeroExposesTheLoaderAndWorkersFourHidesIt) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  const DataPipelineExposure zero = exposureOf(workers0);
  const DataPipelineExposure four = exposureOf(workers4);
  EXPECT_GT(zero.exposed_fraction, 0.25);
  EXPECT_LT(four.exposed_fraction, 0.02);
  EXPECT_GT(zero.exposed_ns_per_iteration, 40'000'000);  // tens of milliseconds per step
  EXPECT_LT(zero.exposed_ns_per_iteration, zero.loader_ns_per_iteration);
  EXPECT_GT(zero.speedup_if_hidden, 1.3);
  EXPECT_EQ(zero.pageable_h2d_copies, 10u);  // input and labels, five steady steps
}

}  // namespace
}  // namespace ampscope::analyzer
