// The real source on a real device: a kernel launched with <<<>>> must come back as a kernel row
// and a runtime launch row with the same correlation id, on this thread, in the collector's
// clock. Skips where no device is visible (CTest label gpu).

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "collector/collector_clock.h"
#include "collector/cupti/activity_decoder.h"
#include "collector/cupti/gpu_activity_source.h"
#include "tests/collector/cupti/recording_sink.h"
#include "tests/collector/cupti/scale_kernel.h"

namespace ampscope::collector {
namespace {

constexpr int kCount = 1024;
constexpr const char* kKernelName =
    "void ampscope::collector::test::(anonymous namespace)::scaleKernel<float>(float*, float, int)";

// Copies kCount floats in, scales them on the device, copies them out; true when all went well.
::testing::AssertionResult runScale() {
  std::vector<float> host(kCount, 2.0f);  // pageable memory: the copies say so
  void* allocation = nullptr;
  if (cudaMalloc(&allocation, kCount * sizeof(float)) != cudaSuccess) {
    return ::testing::AssertionFailure() << "cudaMalloc failed";
  }
  float* device = static_cast<float*>(allocation);
  bool ok = cudaMemcpy(device, host.data(), kCount * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess &&
            test::launchScaleKernel(device, 3.0f, kCount, nullptr) == cudaSuccess &&
            cudaMemcpy(host.data(), device, kCount * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess &&
            cudaDeviceSynchronize() == cudaSuccess;
  ok = cudaFree(device) == cudaSuccess && ok;
  if (!ok) return ::testing::AssertionFailure() << "a CUDA call failed: " << cudaGetErrorString(cudaGetLastError());
  if (host[0] != 6.0f || host[kCount - 1] != 6.0f) return ::testing::AssertionFailure() << "the kernel did not run";
  return ::testing::AssertionSuccess();
}

TEST(GpuActivitySourceOnDeviceTest, RecordsAKernelAndItsRuntimeLaunchWithTheSameCorrelationId) {
  // Started before the first CUDA call, as a recording must be: CUPTI writes its device records
  // when CUDA initialises.
  auto started = GpuActivitySource::start();
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) GTEST_SKIP() << "no GPU here (cudaGetDeviceCount: " << cudaGetErrorName(status) << ")";
  if (devices == 0) GTEST_SKIP() << "no GPU: cudaGetDeviceCount gives 0";
  ASSERT_TRUE(started) << started.error().message;
  GpuActivitySource& source = **started;
  const std::int64_t before_ns = collectorNowNs();

  ASSERT_TRUE(runScale());

  const std::int64_t after_ns = collectorNowNs();
  ASSERT_TRUE(source.flush(FlushMode::kForced)) << "flush";
  ASSERT_TRUE(source.stop());
  RecordingSink sink;
  const DecodeCounts counts = source.drain(sink);
  EXPECT_GT(counts.rows, 0u);

  const auto kernel = std::find_if(sink.trace.kernels.begin(), sink.trace.kernels.end(),
                                   [&](const trace::Kernel& k) { return sink.str(k.name) == kKernelName; });
  ASSERT_NE(kernel, sink.trace.kernels.end()) << sink.trace.kernels.size() << " kernels, none named " << kKernelName;
  EXPECT_EQ(kernel->grid, (std::array<std::uint32_t, 3>{kCount / 128, 1, 1}));
  EXPECT_EQ(kernel->block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  // In the collector's clock: CUPTI took its times through the registered callback.
  EXPECT_GE(kernel->start_ns, before_ns);
  EXPECT_LE(kernel->end_ns, after_ns);
  EXPECT_LE(kernel->start_ns, kernel->end_ns);

  const auto& launches = sink.trace.launches;
  const auto launch = std::find_if(launches.begin(), launches.end(), [&](const trace::LaunchCall& l) {
    return l.correlation_id == kernel->correlation_id && l.api == trace::ApiKind::kRuntime;
  });
  ASSERT_NE(launch, launches.end()) << "no runtime call with the kernel's correlation id " << kernel->correlation_id;
  // CUDA 13's <<<>>> stub calls __cudaLaunchKernel (cbid 505); older toolkits cudaLaunchKernel (211).
  const std::string_view launch_name = sink.str(launch->name);
  EXPECT_TRUE(launch_name == "__cudaLaunchKernel" || launch_name == "cudaLaunchKernel") << launch_name;
  EXPECT_LE(launch->start_ns, kernel->start_ns);
  ASSERT_NE(launch->thread, trace::kNone);
  const trace::Thread& thread = sink.trace.threads[static_cast<std::size_t>(launch->thread)];
  EXPECT_EQ(thread.pid, getpid());
  EXPECT_EQ(thread.tid, gettid());  // system thread ids, as host-side records take them

  const auto& copies = sink.trace.memory_ops;
  const auto copy_in = std::find_if(copies.begin(), copies.end(), [](const trace::MemoryOp& m) {
    return m.direction == trace::CopyDirection::kHostToDevice;
  });
  ASSERT_NE(copy_in, copies.end());
  EXPECT_EQ(copy_in->bytes, kCount * sizeof(float));
  EXPECT_EQ(copy_in->src_kind, trace::MemoryKind::kPageable);
  EXPECT_EQ(copy_in->dst_kind, trace::MemoryKind::kDevice);

  const auto& syncs = sink.trace.synchronizations;
  const auto sync = std::find_if(syncs.begin(), syncs.end(), [](const trace::Synchronization& s) {
    return s.kind == trace::SyncKind::kContextSynchronize;
  });
  ASSERT_NE(sync, syncs.end()) << "cudaDeviceSynchronize was not recorded";
  EXPECT_EQ(sync->device, kernel->device);

  ASSERT_FALSE(sink.trace.devices.empty());
  EXPECT_GT(sink.trace.devices[0].sm_count, 0);
  EXPECT_GE(sink.trace.devices[0].compute_major, 7);
  EXPECT_GT(sink.trace.devices[0].total_memory_bytes, 0u);
  EXPECT_FALSE(sink.str(sink.trace.devices[0].name).empty());

  EXPECT_EQ(sink.lostCount(kLostDroppedRecords), 0u);
  EXPECT_EQ(sink.lostCount(kLostUnknownContext), 0u);
}

}  // namespace
}  // namespace ampscope::collector
