#include "collector/cupti/activity_decoder.h"

#include <gtest/gtest.h>

#include <array>
#include <utility>

#include "tests/collector/cupti/activity_buffer_builder.h"
#include "tests/collector/cupti/cupti_test_records.h"
#include "tests/collector/cupti/fake_cupti_api.h"
#include "tests/collector/cupti/recording_sink.h"

namespace ampscope::collector {
namespace {

using test::apiRecord;
using test::kernelRecord;
using test::memcpyRecord;
using test::memoryRecord;

class ActivityDecoderTest : public ::testing::Test {
 protected:
  ActivityDecoderTest() {
    fake_.runtime_names[CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000] = "cudaLaunchKernel_v7000";
    fake_.runtime_names[CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000] = "cudaLaunchKernel_ptsz_v7000";
    fake_.driver_names[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] = "cuLaunchKernel";
    fake_.driver_names[CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2] = "cuMemcpyHtoDAsync_v2";
  }

  DecodeCounts decode(const ActivityBufferBuilder& builder) {
    OwnedActivityBuffer buffer(builder, fake_);
    return decoder_.decode(buffer.data(), buffer.validBytes(), sink_);
  }

  FakeCuptiApi fake_;
  ActivityDecoder decoder_{fake_};
  RecordingSink sink_;
};

TEST_F(ActivityDecoderTest, DecodesAKernelWithItsLaunchConfiguration) {
  KernelRecord k = kernelRecord(1'000'000, 1'250'000, 17, "_Z11scaleKernelIfEvPT_fi");
  k.deviceId = 1;
  k.streamId = 13;
  k.gridX = 120;
  k.gridY = 2;
  k.gridZ = 3;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 4;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 48 * 1024;

  const DecodeCounts counts = decode(ActivityBufferBuilder().add(k));

  EXPECT_EQ(counts.records, 1u);
  EXPECT_EQ(counts.rows, 1u);
  EXPECT_EQ(counts.not_decoded, 0u);
  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  const trace::Kernel& kernel = sink_.trace.kernels[0];
  EXPECT_EQ(kernel.start_ns, 1'000'000);
  EXPECT_EQ(kernel.end_ns, 1'250'000);
  EXPECT_EQ(kernel.correlation_id, 17u);
  EXPECT_EQ(sink_.str(kernel.name), "void scaleKernel<float>(float*, float, int)");
  EXPECT_EQ(kernel.device, 1u);
  EXPECT_EQ(kernel.stream, 13u);
  EXPECT_EQ(kernel.grid, (std::array<std::uint32_t, 3>{120, 2, 3}));
  EXPECT_EQ(kernel.block, (std::array<std::uint32_t, 3>{256, 1, 4}));
  EXPECT_EQ(kernel.registers_per_thread, 40u);
  EXPECT_EQ(kernel.shared_memory_bytes, 1024u + 48u * 1024u);
  EXPECT_EQ(kernel.launch, trace::kNone);
  EXPECT_TRUE(sink_.trace.import_stats.lost.empty());
}

TEST_F(ActivityDecoderTest, KeepsKernelNamesThatAreNotMangledCppAsGiven) {
  decode(ActivityBufferBuilder()
             .add(kernelRecord(10, 20, 1, "relu_fp16_kernel"))
             .add(kernelRecord(30, 40, 2, "_Znot_a_mangled_name"))
             .add(kernelRecord(50, 60, 3, "_Z11scaleKernelIfEvPT_fi"))
             .add(kernelRecord(70, 80, 4, "_Z11scaleKernelIfEvPT_fi")));

  ASSERT_EQ(sink_.trace.kernels.size(), 4u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "relu_fp16_kernel");
  EXPECT_EQ(sink_.str(sink_.trace.kernels[1].name), "_Znot_a_mangled_name");
  EXPECT_EQ(sink_.str(sink_.trace.kernels[2].name), "void scaleKernel<float>(float*, float, int)");
  EXPECT_EQ(sink_.trace.kernels[3].name, sink_.trace.kernels[2].name);
}

TEST_F(ActivityDecoderTest, DemanglesKernelsInNvccsAnonymousNamespaces) {
  // nvcc names an anonymous namespace after the file; the demangler still reads it as one.
  decode(ActivityBufferBuilder().add(kernelRecord(
      10, 20, 1,
      "_ZN8ampscope9collector4test48_GLOBAL__N__48720b31_15_scale_kernel_cu_7365339211scaleKernelIfEEvPT_S4_i")));

  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name),
            "void ampscope::collector::test::(anonymous namespace)::scaleKernel<float>(float*, float, int)");
}

TEST_F(ActivityDecoderTest, DecodesTheSerialKernelKindLikeTheConcurrentOne) {
  KernelRecord k = kernelRecord(100, 200, 5, "gemv");
  k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  decode(ActivityBufferBuilder().add(k));

  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.trace.kernels[0].correlation_id, 5u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "gemv");
}

TEST_F(ActivityDecoderTest, MapsEachCopyKindToItsDirection) {
  using trace::CopyDirection;
  const std::pair<CUpti_ActivityMemcpyKind, CopyDirection> cases[] = {
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CopyDirection::kHostToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CopyDirection::kDeviceToHost},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CopyDirection::kHostToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, CopyDirection::kDeviceToHost},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, CopyDirection::kDeviceToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, CopyDirection::kDeviceToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, CopyDirection::kDeviceToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CopyDirection::kDeviceToDevice},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CopyDirection::kHostToHost},
      {CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, CopyDirection::kPeerToPeer},
      {CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, CopyDirection::kUnknown},
  };
  ActivityBufferBuilder builder;
  for (const auto& [copy_kind, direction] : cases) {
    builder.add(memcpyRecord(copy_kind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
  }
  decode(builder);

  ASSERT_EQ(sink_.trace.memory_ops.size(), std::size(cases));
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(sink_.trace.memory_ops[i].direction, cases[i].second) << "copy kind " << cases[i].first;
    EXPECT_EQ(sink_.trace.memory_ops[i].kind, trace::MemoryOpKind::kMemcpy);
  }
}

TEST_F(ActivityDecoderTest, DecodesACopyWithItsBytesStreamAndMemoryKinds) {
  using trace::MemoryKind;
  MemcpyRecord pageable_to_device = memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                                                 CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  pageable_to_device.bytes = 3 * 1024 * 1024;
  pageable_to_device.start = 5'000;
  pageable_to_device.end = 9'500;
  pageable_to_device.deviceId = 2;
  pageable_to_device.streamId = 21;
  pageable_to_device.correlationId = 77;
  decode(ActivityBufferBuilder()
             .add(pageable_to_device)
             .add(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC,
                               CUPTI_ACTIVITY_MEMORY_KIND_PINNED))
             .add(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC,
                               CUPTI_ACTIVITY_MEMORY_KIND_ARRAY))
             .add(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED,
                               CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN)));

  ASSERT_EQ(sink_.trace.memory_ops.size(), 4u);
  const trace::MemoryOp& first = sink_.trace.memory_ops[0];
  EXPECT_EQ(first.start_ns, 5'000);
  EXPECT_EQ(first.end_ns, 9'500);
  EXPECT_EQ(first.bytes, 3u * 1024u * 1024u);
  EXPECT_EQ(first.device, 2u);
  EXPECT_EQ(first.stream, 21u);
  EXPECT_EQ(first.correlation_id, 77u);
  EXPECT_EQ(first.direction, trace::CopyDirection::kHostToDevice);
  EXPECT_EQ(first.src_kind, MemoryKind::kPageable);
  EXPECT_EQ(first.dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(sink_.trace.memory_ops[1].src_kind, MemoryKind::kDevice);
  EXPECT_EQ(sink_.trace.memory_ops[1].dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(sink_.trace.memory_ops[2].src_kind, MemoryKind::kManaged);
  EXPECT_EQ(sink_.trace.memory_ops[2].dst_kind, MemoryKind::kArray);
  EXPECT_EQ(sink_.trace.memory_ops[3].src_kind, MemoryKind::kManaged);
  EXPECT_EQ(sink_.trace.memory_ops[3].dst_kind, MemoryKind::kUnknown);
}

TEST_F(ActivityDecoderTest, DecodesAPeerToPeerCopyOnTheDeviceThatRanIt) {
  PeerCopyRecord p{};
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 1 << 20;
  p.start = 300;
  p.end = 900;
  p.deviceId = 1;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.streamId = 30;
  p.correlationId = 31;
  decode(ActivityBufferBuilder().add(p));

  ASSERT_EQ(sink_.trace.memory_ops.size(), 1u);
  const trace::MemoryOp& op = sink_.trace.memory_ops[0];
  EXPECT_EQ(op.direction, trace::CopyDirection::kPeerToPeer);
  EXPECT_EQ(op.device, 1u);
  EXPECT_EQ(op.stream, 30u);
  EXPECT_EQ(op.correlation_id, 31u);
  EXPECT_EQ(op.bytes, 1u << 20);
  EXPECT_EQ(op.start_ns, 300);
  EXPECT_EQ(op.end_ns, 900);
}

TEST_F(ActivityDecoderTest, DecodesAMemsetWithTheMemoryItWrites) {
  MemsetRecord m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0;
  m.bytes = 65536;
  m.start = 4'000;
  m.end = 4'200;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = 12;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  decode(ActivityBufferBuilder().add(m));

  ASSERT_EQ(sink_.trace.memory_ops.size(), 1u);
  trace::MemoryOp expected;
  expected.start_ns = 4'000;
  expected.end_ns = 4'200;
  expected.correlation_id = 12;
  expected.bytes = 65536;
  expected.device = 0;
  expected.stream = 7;
  expected.kind = trace::MemoryOpKind::kMemset;
  expected.direction = trace::CopyDirection::kUnknown;
  expected.src_kind = trace::MemoryKind::kUnknown;
  expected.dst_kind = trace::MemoryKind::kDevice;
  EXPECT_EQ(sink_.trace.memory_ops[0], expected);
}

TEST_F(ActivityDecoderTest, DecodesRuntimeAndDriverCallsWithTheirThreadAndTheKernelsCorrelation) {
  ApiRecord runtime = apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 900,
                                950, 40);
  ApiRecord driver = apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 960, 990, 41);
  driver.threadId = 5000;  // another thread of the same process
  decode(ActivityBufferBuilder()
             .add(runtime)
             .add(driver)
             .add(kernelRecord(1'000, 2'000, 40, "k_runtime"))
             .add(kernelRecord(2'000, 3'000, 41, "k_driver")));

  ASSERT_EQ(sink_.trace.launches.size(), 2u);
  ASSERT_EQ(sink_.trace.threads.size(), 2u);
  const trace::LaunchCall& first = sink_.trace.launches[0];
  EXPECT_EQ(first.start_ns, 900);
  EXPECT_EQ(first.end_ns, 950);
  EXPECT_EQ(first.correlation_id, 40u);
  EXPECT_EQ(sink_.str(first.name), "cudaLaunchKernel");
  EXPECT_EQ(first.cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  EXPECT_EQ(first.api, trace::ApiKind::kRuntime);
  ASSERT_NE(first.thread, trace::kNone);
  EXPECT_EQ(sink_.trace.threads[static_cast<std::size_t>(first.thread)].pid, 4242);
  EXPECT_EQ(sink_.trace.threads[static_cast<std::size_t>(first.thread)].tid, 4243);

  const trace::LaunchCall& second = sink_.trace.launches[1];
  EXPECT_EQ(sink_.str(second.name), "cuLaunchKernel");
  EXPECT_EQ(second.cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  EXPECT_EQ(second.api, trace::ApiKind::kDriver);
  EXPECT_EQ(second.correlation_id, 41u);
  ASSERT_NE(second.thread, trace::kNone);
  EXPECT_EQ(sink_.trace.threads[static_cast<std::size_t>(second.thread)].tid, 5000);

  ASSERT_EQ(sink_.trace.kernels.size(), 2u);
  EXPECT_EQ(sink_.trace.kernels[0].correlation_id, first.correlation_id);
  EXPECT_EQ(sink_.trace.kernels[1].correlation_id, second.correlation_id);
}

TEST_F(ActivityDecoderTest, DropsTheCudaVersionSuffixOfRuntimeNamesButKeepsDriverVersions) {
  // CUDA 13's <<<>>> launches through __cudaLaunchKernel (cbid 505), not cudaLaunchKernel.
  fake_.runtime_names[CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000] = "__cudaLaunchKernel_v13000";
  decode(ActivityBufferBuilder()
             .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, 1, 2, 1))
             .add(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, 3, 4, 2))
             .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 5, 6, 3)));

  ASSERT_EQ(sink_.trace.launches.size(), 3u);
  EXPECT_EQ(sink_.str(sink_.trace.launches[0].name), "cudaLaunchKernel_ptsz");
  EXPECT_EQ(sink_.str(sink_.trace.launches[1].name), "cuMemcpyHtoDAsync_v2");
  EXPECT_EQ(sink_.str(sink_.trace.launches[2].name), "__cudaLaunchKernel");
}

TEST_F(ActivityDecoderTest, NamesACallbackCuptiCannotNameByItsNumber) {
  decode(ActivityBufferBuilder()
             .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, 9999, 1, 2, 1))
             .add(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, 8888, 3, 4, 2)));

  ASSERT_EQ(sink_.trace.launches.size(), 2u);
  EXPECT_EQ(sink_.str(sink_.trace.launches[0].name), "cudaRuntime#9999");
  EXPECT_EQ(sink_.str(sink_.trace.launches[1].name), "cudaDriver#8888");
}

TEST_F(ActivityDecoderTest, DecodesSynchronizationsOnTheDeviceOfTheirContext) {
  ContextRecord context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  context.contextId = 5;
  context.deviceId = 3;
  SyncRecord stream_sync{};
  stream_sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  stream_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  stream_sync.start = 10'000;
  stream_sync.end = 15'000;
  stream_sync.correlationId = 60;
  stream_sync.contextId = 5;
  stream_sync.streamId = 14;
  SyncRecord context_sync = stream_sync;
  context_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  context_sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  context_sync.correlationId = 61;
  SyncRecord event_sync = stream_sync;
  event_sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  SyncRecord wait_event = stream_sync;
  wait_event.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;

  const DecodeCounts counts =
      decode(ActivityBufferBuilder().add(context).add(stream_sync).add(context_sync).add(event_sync).add(wait_event));

  EXPECT_EQ(counts.records, 5u);
  EXPECT_EQ(counts.rows, 4u);  // the context record only tells the device
  ASSERT_EQ(sink_.trace.synchronizations.size(), 4u);
  trace::Synchronization expected;
  expected.start_ns = 10'000;
  expected.end_ns = 15'000;
  expected.correlation_id = 60;
  expected.device = 3;
  expected.stream = 14;
  expected.kind = trace::SyncKind::kStreamSynchronize;
  EXPECT_EQ(sink_.trace.synchronizations[0], expected);
  EXPECT_EQ(sink_.trace.synchronizations[1].kind, trace::SyncKind::kContextSynchronize);
  EXPECT_EQ(sink_.trace.synchronizations[1].stream, CUPTI_SYNCHRONIZATION_INVALID_VALUE);
  EXPECT_EQ(sink_.trace.synchronizations[1].device, 3u);
  EXPECT_EQ(sink_.trace.synchronizations[2].kind, trace::SyncKind::kEventSynchronize);
  EXPECT_EQ(sink_.trace.synchronizations[3].kind, trace::SyncKind::kStreamWaitEvent);
  EXPECT_TRUE(sink_.trace.import_stats.lost.empty());
}

TEST_F(ActivityDecoderTest, LearnsAContextsDeviceFromItsKernelsInEarlierBuffers) {
  KernelRecord k = kernelRecord(100, 200, 1, "k");
  k.contextId = 9;
  k.deviceId = 2;
  decode(ActivityBufferBuilder().add(k));
  SyncRecord sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = 300;
  sync.end = 400;
  sync.contextId = 9;
  decode(ActivityBufferBuilder().add(sync));

  ASSERT_EQ(sink_.trace.synchronizations.size(), 1u);
  EXPECT_EQ(sink_.trace.synchronizations[0].device, 2u);
}

TEST_F(ActivityDecoderTest, LearnsAContextsDeviceFromAKernelLaterInTheSameBuffer) {
  SyncRecord sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = 300;
  sync.end = 400;
  sync.contextId = 4;
  sync.correlationId = 8;
  KernelRecord k = kernelRecord(100, 200, 1, "k");  // the kernel waited for, completed after
  k.contextId = 4;
  k.deviceId = 6;

  const DecodeCounts counts = decode(ActivityBufferBuilder().add(sync).add(k));

  EXPECT_EQ(counts.rows, 2u);
  ASSERT_EQ(sink_.trace.synchronizations.size(), 1u);
  EXPECT_EQ(sink_.trace.synchronizations[0].device, 6u);
  EXPECT_EQ(sink_.trace.synchronizations[0].correlation_id, 8u);
  EXPECT_EQ(sink_.lostCount(kLostUnknownContext), 0u);
}

TEST_F(ActivityDecoderTest, CountsSynchronizationsOfAContextItHasNotSeen) {
  SyncRecord sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  sync.start = 300;
  sync.end = 400;
  sync.contextId = 77;
  decode(ActivityBufferBuilder().add(sync).add(sync));

  ASSERT_EQ(sink_.trace.synchronizations.size(), 2u);
  EXPECT_EQ(sink_.trace.synchronizations[0].device, 0u);
  EXPECT_EQ(sink_.lostCount(kLostUnknownContext), 2u);
}

TEST_F(ActivityDecoderTest, DecodesADeviceRecord) {
  DeviceRecord d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 1;
  d.name = "NVIDIA H100 80GB HBM3";
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  d.globalMemorySize = 85'520'809'984ULL;
  d.coreClockRate = 1'980'000;                // kHz
  d.globalMemoryBandwidth = 3'352'320'000ULL;  // KB/s
  decode(ActivityBufferBuilder().add(d));

  ASSERT_EQ(sink_.trace.devices.size(), 1u);
  const trace::Device& device = sink_.trace.devices[0];
  EXPECT_EQ(device.id, 1u);
  EXPECT_EQ(sink_.str(device.name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(device.kind, trace::DeviceKind::kGpu);
  EXPECT_EQ(device.compute_major, 9);
  EXPECT_EQ(device.compute_minor, 0);
  EXPECT_EQ(device.sm_count, 132);
  EXPECT_EQ(device.total_memory_bytes, 85'520'809'984ULL);
  EXPECT_EQ(device.sm_clock_khz, 1'980'000);
  EXPECT_EQ(device.memory_bandwidth_bytes_per_s, 3'352'320'000'000ULL);
}

TEST_F(ActivityDecoderTest, KeepsEarlierKernelsThatArriveInALaterBuffer) {
  // CUPTI completes buffers per stream as they fill: the launches and a later kernel can come
  // back before the kernel launched first.
  decode(ActivityBufferBuilder()
             .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 110, 1))
             .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 120, 130, 2))
             .add(kernelRecord(5'000, 6'000, 2, "second")));
  decode(ActivityBufferBuilder().add(kernelRecord(1'000, 2'000, 1, "first")));

  ASSERT_EQ(sink_.trace.kernels.size(), 2u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "second");
  EXPECT_EQ(sink_.str(sink_.trace.kernels[1].name), "first");
  EXPECT_EQ(sink_.trace.kernels[1].start_ns, 1'000);
  EXPECT_EQ(sink_.trace.kernels[1].end_ns, 2'000);
  EXPECT_EQ(sink_.trace.kernels[1].correlation_id, 1u);
  EXPECT_EQ(sink_.trace.launches.size(), 2u);
  EXPECT_TRUE(sink_.trace.import_stats.lost.empty());
}

TEST_F(ActivityDecoderTest, DecodesDeviceAllocationsAndFreesWithTheThreadOfTheirCall) {
  MemoryRecord allocation =
      memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f00'0000'0000ULL, 1 << 20, 1'500, 31);
  allocation.deviceId = 2;
  const MemoryRecord release =
      memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x7f00'0000'0000ULL, 1 << 20, 9'500, 32);
  // The allocation comes before its call's record (CUPTI writes the call's at its end); the free
  // has no call in the buffer.
  const DecodeCounts counts =
      decode(ActivityBufferBuilder()
                 .add(allocation)
                 .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1'000, 2'000, 31))
                 .add(release));

  EXPECT_EQ(counts.records, 3u);
  EXPECT_EQ(counts.rows, 3u);
  EXPECT_EQ(counts.not_decoded, 0u);
  ASSERT_EQ(sink_.trace.memory_events.size(), 2u);
  const trace::MemoryEvent& a = sink_.trace.memory_events[0];
  EXPECT_EQ(a.time_ns, 1'500);
  EXPECT_EQ(a.bytes, 1 << 20);
  EXPECT_EQ(a.address, 0x7f00'0000'0000ULL);
  EXPECT_EQ(a.device_kind, trace::DeviceKind::kGpu);
  EXPECT_EQ(a.device, 2u);
  EXPECT_EQ(a.pid, 4242);
  ASSERT_NE(a.thread, trace::kNone);
  EXPECT_EQ(sink_.trace.threads[static_cast<std::size_t>(a.thread)].tid, 4243);
  EXPECT_EQ(a.total_allocated, trace::MemoryEvent::kNotRecorded);  // CUPTI gives no totals
  EXPECT_EQ(a.total_reserved, trace::MemoryEvent::kNotRecorded);
  const trace::MemoryEvent& f = sink_.trace.memory_events[1];
  EXPECT_EQ(f.bytes, -(1 << 20));
  EXPECT_EQ(f.address, 0x7f00'0000'0000ULL);
  EXPECT_EQ(f.thread, trace::kNone);
  EXPECT_TRUE(sink_.trace.import_stats.lost.empty());
}

TEST_F(ActivityDecoderTest, GivesAFreeTheThreadOfItsCallInThePreviousBuffer) {
  decode(ActivityBufferBuilder().add(
      apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 1'000, 2'000, 40)));
  decode(ActivityBufferBuilder().add(memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x1000, 256, 1'200, 40)));
  ASSERT_EQ(sink_.trace.memory_events.size(), 1u);
  EXPECT_EQ(sink_.trace.memory_events[0].thread, sink_.trace.launches[0].thread);
  EXPECT_NE(sink_.trace.memory_events[0].thread, trace::kNone);
}

TEST_F(ActivityDecoderTest, CountsAllocationsOfOtherMemoryAndRecordsWithoutATimeInsteadOfKeepingThem) {
  MemoryRecord pinned = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x2000, 4096, 100, 1);
  pinned.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  MemoryRecord managed = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x3000, 4096, 100, 2);
  managed.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  const MemoryRecord untimed = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x4000, 4096, 0, 3);
  const MemoryRecord invalid = memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID, 0x5000, 4096, 100, 4);
  const DecodeCounts counts = decode(ActivityBufferBuilder().add(pinned).add(managed).add(untimed).add(invalid));

  EXPECT_EQ(counts.records, 4u);
  EXPECT_EQ(counts.rows, 0u);
  EXPECT_EQ(counts.not_decoded, 4u);
  EXPECT_TRUE(sink_.trace.memory_events.empty());
  EXPECT_EQ(sink_.lostCount(kLostNonDeviceMemory), 2u);
  EXPECT_EQ(sink_.lostCount(kLostWithoutTimestamps), 1u);
  EXPECT_EQ(sink_.lostCount(kLostUnknownMemoryOperation), 1u);
}

TEST_F(ActivityDecoderTest, CountsRecordsOfAKindItDoesNotDecodeByKind) {
  CUpti_ActivityMarker2 marker{};
  marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
  CUpti_ActivityOverhead3 overhead{};
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  const DecodeCounts counts = decode(ActivityBufferBuilder()
                                         .add(marker)
                                         .add(kernelRecord(10, 20, 1, "k"))
                                         .add(marker)
                                         .add(overhead));

  EXPECT_EQ(counts.records, 4u);
  EXPECT_EQ(counts.rows, 1u);
  EXPECT_EQ(counts.not_decoded, 3u);
  EXPECT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.lostCount("CUPTI records of kind 12 not decoded"), 2u);
  EXPECT_EQ(sink_.lostCount("CUPTI records of kind 17 not decoded"), 1u);
  EXPECT_EQ(sink_.trace.import_stats.lost.size(), 2u);
}

TEST_F(ActivityDecoderTest, CountsGpuRecordsWithoutTimestampsInsteadOfPlacingThemAtZero) {
  MemsetRecord memset{};
  memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  SyncRecord sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  const DecodeCounts counts = decode(ActivityBufferBuilder()
                                         .add(kernelRecord(0, 0, 1, "unfinished"))
                                         .add(kernelRecord(500, 0, 2, "no_end"))
                                         .add(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                                                           CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                                           CUPTI_ACTIVITY_MEMORY_KIND_DEVICE))
                                         .add(memset)
                                         .add(sync));

  EXPECT_EQ(counts.rows, 1u);  // the copy, which has its times
  EXPECT_TRUE(sink_.trace.kernels.empty());
  EXPECT_TRUE(sink_.trace.synchronizations.empty());
  ASSERT_EQ(sink_.trace.memory_ops.size(), 1u);
  EXPECT_EQ(sink_.trace.memory_ops[0].kind, trace::MemoryOpKind::kMemcpy);
  EXPECT_EQ(sink_.lostCount(kLostWithoutTimestamps), 4u);
}

TEST_F(ActivityDecoderTest, StopsAtAnUnreadableRecordAndCountsTheBuffer) {
  const DecodeCounts counts = decode(ActivityBufferBuilder()
                                         .add(kernelRecord(10, 20, 1, "read"))
                                         .unreadableFromHere()
                                         .add(kernelRecord(30, 40, 2, "not_read"))
                                         .add(kernelRecord(50, 60, 3, "not_read_either")));

  EXPECT_EQ(counts.records, 1u);
  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "read");
  EXPECT_EQ(sink_.lostCount(kLostUnreadableRecord), 1u);
}

TEST_F(ActivityDecoderTest, ReadsOnlyTheValidPartOfABuffer) {
  ActivityBufferBuilder builder;
  builder.add(kernelRecord(10, 20, 1, "valid"));
  const std::size_t valid_bytes = builder.validBytes();
  builder.add(kernelRecord(30, 40, 2, "beyond_valid_size"));
  OwnedActivityBuffer buffer(builder, fake_);

  const DecodeCounts counts = decoder_.decode(buffer.data(), valid_bytes, sink_);

  EXPECT_EQ(counts.records, 1u);
  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "valid");
  EXPECT_EQ(decoder_.decode(buffer.data(), 0, sink_).records, 0u);
}

}  // namespace
}  // namespace ampscope::collector
