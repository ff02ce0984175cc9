// libcupti itself, on any machine: the parts of CUPTI that work without a driver (callback names,
// result strings, walking a buffer), and a start that fails plainly where there is no driver.

#include "collector/cupti/real_cupti_api.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "collector/cupti/activity_decoder.h"
#include "collector/cupti/cupti_api.h"
#include "collector/cupti/gpu_activity_source.h"
#include "tests/collector/cupti/activity_buffer_builder.h"
#include "tests/collector/cupti/cupti_test_records.h"
#include "tests/collector/cupti/recording_sink.h"

namespace ampscope::collector {
namespace {

bool driverLoadable() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver != nullptr) dlclose(driver);
  return driver != nullptr;
}

TEST(RealCuptiApiTest, NamesRuntimeAndDriverCallbacks) {
  RealCuptiApi api;

  EXPECT_EQ(api.callbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
            "cudaLaunchKernel_v7000");
  EXPECT_EQ(api.callbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cuLaunchKernel");
  EXPECT_EQ(api.callbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 999'999), "");
  EXPECT_EQ(api.resultString(CUPTI_ERROR_NOT_INITIALIZED), "CUPTI_ERROR_NOT_INITIALIZED");
}

TEST(RealCuptiApiTest, ErrorNamesTheCallAndCuptisOwnWords) {
  RealCuptiApi api;

  const trace::Status status = api.registerBufferCallbacks(nullptr, nullptr);

  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "cuptiActivityRegisterCallbacks(requested, completed) failed: CUPTI_ERROR_INVALID_PARAMETER (1)");
}

// The fake walks buffers by the offsets ActivityBufferBuilder chose; CUPTI must agree with them,
// or the fake-driven tests would prove nothing about real buffers.
TEST(RealCuptiApiTest, WalksBuffersLaidOutLikeTheTestsLayThemOut) {
  RealCuptiApi api;
  FakeCuptiApi layout_only;
  ActivityDecoder decoder(api);
  RecordingSink sink;
  SyncRecord sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = 3'000;
  sync.end = 3'500;
  sync.contextId = 1;
  DeviceRecord device{};
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  device.name = "GPU of the test";
  MemsetRecord memset{};
  memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  memset.start = 10;
  memset.end = 20;
  CUpti_ActivityMarker2 marker{};
  marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
  ActivityBufferBuilder builder;
  builder.add(test::apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 200,
                              1))
      .add(test::kernelRecord(1'000, 2'000, 1, "_Z11scaleKernelIfEvPT_fi"))
      .add(test::memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                              CUPTI_ACTIVITY_MEMORY_KIND_DEVICE))
      .add(memset)
      .add(marker)
      .add(sync)
      .add(device)
      .add(test::apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 300, 400, 2));
  OwnedActivityBuffer buffer(builder, layout_only);

  const DecodeCounts counts = decoder.decode(buffer.data(), buffer.validBytes(), sink);

  EXPECT_EQ(counts.records, 8u);
  EXPECT_EQ(counts.rows, 7u);
  ASSERT_EQ(sink.trace.launches.size(), 2u);
  EXPECT_EQ(sink.str(sink.trace.launches[0].name), "cudaLaunchKernel");
  EXPECT_EQ(sink.str(sink.trace.launches[1].name), "cuLaunchKernel");
  ASSERT_EQ(sink.trace.kernels.size(), 1u);
  EXPECT_EQ(sink.str(sink.trace.kernels[0].name), "void scaleKernel<float>(float*, float, int)");
  EXPECT_EQ(sink.trace.memory_ops.size(), 2u);
  EXPECT_EQ(sink.trace.synchronizations.size(), 1u);
  ASSERT_EQ(sink.trace.devices.size(), 1u);
  EXPECT_EQ(sink.str(sink.trace.devices[0].name), "GPU of the test");
  EXPECT_EQ(sink.lostCount(lostUndecodedKindReason(CUPTI_ACTIVITY_KIND_MARKER)), 1u);
}

TEST(RealCuptiApiTest, FindsNoRecordInAnEmptyBuffer) {
  RealCuptiApi api;
  alignas(8) std::uint8_t buffer[64] = {};

  const trace::Result<CUpti_Activity*> next = api.nextRecord(buffer, 0, nullptr);

  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(*next, nullptr);
}

TEST(GpuActivitySourceWithoutDriverTest, StartSaysNoGpuActivityCanBeRecordedAndWhy) {
  if (driverLoadable()) {
    GTEST_SKIP() << "the NVIDIA driver is installed; this test is about machines without it";
  }

  auto source = GpuActivitySource::start();

  ASSERT_FALSE(source) << "CUPTI started without a driver";
  const std::string& message = source.error().message;
  EXPECT_EQ(message.rfind("no GPU activity can be recorded: CUPTI could not start: cupti", 0), 0u) << message;
  EXPECT_NE(message.find("failed: CUPTI_ERROR_"), std::string::npos) << message;
  EXPECT_NE(message.find("the NVIDIA driver library libcuda.so.1 cannot be loaded"), std::string::npos) << message;
}

}  // namespace
}  // namespace ampscope::collector
