// Real NVTX calls in this process reach the collector through NVTX's static injection hook
// (collector/nvtx/static_injection.cpp). NVTX initialises at its first call, and attaches the tool
// only when a recording runs then: each test starts its recorder before any NVTX call, and CTest
// runs each test in a process of its own.

#include "collector/profile_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include "collector/nvtx/nvtx_tool.h"
#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope::collector {
namespace {

std::unique_ptr<ProfileRecorder> startRecorder(const std::string& path,
                                               std::chrono::milliseconds interval = std::chrono::milliseconds(100)) {
  RecorderOptions options;
  options.path = path;
  options.source_detail = "profile_recorder_test";
  options.flush_interval = interval;
  auto recorder = ProfileRecorder::start(options);
  EXPECT_TRUE(recorder.ok()) << (recorder.ok() ? "" : recorder.error().message);
  return recorder.ok() ? std::move(recorder).value() : nullptr;
}

const trace::Range* findRange(const trace::Trace& t, std::string_view name) {
  for (const trace::Range& r : t.ranges) {
    if (t.str(r.name) == name) return &r;
  }
  return nullptr;
}

nvtxEventAttributes_t attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

TEST(ProfileRecorderTest, RecordsRealNvtxCallsWithNestingDomainsRegisteredStringsAndPayloads) {
  test::ScratchDir dir;
  auto recorder = startRecorder(dir.file("run.sqlite"));
  ASSERT_TRUE(recorder);
  nvtxRangePushA("outer");
  nvtxDomainHandle_t domain = nvtxDomainCreateA("my.library");
  nvtxDomainNameCategoryA(domain, 3, "io");
  nvtxStringHandle_t text = nvtxDomainRegisterStringA(domain, "registered text");
  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = text;
  a.category = 3;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = 18'000'000'000'000'000'000ULL;
  nvtxDomainRangePushEx(domain, &a);
  nvtxMarkA("a mark");
  nvtxDomainRangePop(domain);
  nvtxRangePop();
  nvtxRangeId_t id = nvtxRangeStartA("across threads");
  std::thread([id] { nvtxRangeEnd(id); }).join();
  ASSERT_TRUE(nvtxToolAttached());
  ASSERT_TRUE(recorder->stop().ok());

  auto t = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->ranges.size(), 4u);
  const trace::Range* outer = findRange(*t, "outer");
  const trace::Range* registered = findRange(*t, "registered text");
  const trace::Range* mark = findRange(*t, "a mark");
  const trace::Range* across = findRange(*t, "across threads");
  ASSERT_TRUE(outer && registered && mark && across);
  EXPECT_LE(outer->start_ns, registered->start_ns);
  EXPECT_GE(outer->end_ns, registered->end_ns);
  EXPECT_LT(registered->start_ns, registered->end_ns);
  EXPECT_EQ(t->str(registered->domain), "my.library");
  EXPECT_EQ(registered->category, 3u);
  EXPECT_EQ(t->str(registered->payload), "18000000000000000000");
  EXPECT_EQ(mark->start_ns, mark->end_ns);
  EXPECT_GT(across->end_ns, across->start_ns);
  EXPECT_TRUE(t->import_stats.lost.empty());
}

TEST(ProfileRecorderTest, CommitsWhileTheProgramRunsSoTheProfileIsReadableBeforeTheEnd) {
  test::ScratchDir dir;
  auto recorder = startRecorder(dir.file("run.sqlite"), std::chrono::milliseconds(20));
  ASSERT_TRUE(recorder);
  nvtxRangePushA("finished early");
  nvtxRangePop();
  nvtxRangePushA("still open");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto during = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(during.ok()) << during.error().message;
  ASSERT_EQ(during->ranges.size(), 1u);
  EXPECT_EQ(during->str(during->ranges[0].name), "finished early");
  ASSERT_TRUE(recorder->stop().ok());
  auto after = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->import_stats.lost.at("NVTX ranges still open when the recording ended"), 1u);
  EXPECT_EQ(after->import_stats.dropped_by_collector, 1u);
}

TEST(ProfileRecorderTest, StoresCountersGradientBinsAndThreadNames) {
  test::ScratchDir dir;
  auto recorder = startRecorder(dir.file("run.sqlite"));
  ASSERT_TRUE(recorder);
  nvtxNameOsThreadA(static_cast<std::uint32_t>(syscall(SYS_gettid)), "trainer");
  nvtxRangePushA("step 0");
  recorder->counter("loss_scale", 0, 65536.0);
  recorder->gradientBin("fc1.weight", 0, -20, 123);
  nvtxRangePop();
  ASSERT_TRUE(recorder->stop().ok());
  auto t = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->counters.size(), 1u);
  EXPECT_EQ(t->str(t->counters[0].name), "loss_scale");
  EXPECT_EQ(t->counters[0].value, 65536.0);
  ASSERT_EQ(t->gradient_bins.size(), 1u);
  EXPECT_EQ(t->str(t->gradient_bins[0].tensor), "fc1.weight");
  EXPECT_EQ(t->gradient_bins[0].exponent, -20);
  EXPECT_EQ(t->gradient_bins[0].count, 123u);
  ASSERT_EQ(t->threads.size(), 1u);
  EXPECT_EQ(t->str(t->threads[0].name), "trainer");
  EXPECT_EQ(t->format_detail, "profile_recorder_test");
}

TEST(ProfileRecorderTest, RecordsHostOpsAsKernelsOnTheCpuDeviceLinkedToTheirThread) {
  test::ScratchDir dir;
  auto recorder = startRecorder(dir.file("run.sqlite"));
  ASSERT_TRUE(recorder);
  nvtxDomainHandle_t host = nvtxDomainCreateA("ampscope.host");
  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "cpu gemm float16";
  nvtxRangePushA("fc1 linear forward");
  nvtxDomainRangePushEx(host, &a);
  nvtxDomainRangePop(host);
  nvtxRangePop();
  ASSERT_TRUE(recorder->stop().ok());
  auto t = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].kind, trace::DeviceKind::kCpu);
  EXPECT_EQ(t->str(t->devices[0].name).substr(0, 4), "CPU:");
  ASSERT_EQ(t->kernels.size(), 1u);
  ASSERT_EQ(t->launches.size(), 1u);
  EXPECT_EQ(t->str(t->kernels[0].name), "cpu gemm float16");
  EXPECT_EQ(t->kernels[0].correlation_id, t->launches[0].correlation_id);
  EXPECT_EQ(t->launches[0].start_ns, t->kernels[0].start_ns);
  ASSERT_EQ(t->ranges.size(), 1u);  // the host op is activity, not an annotation
  EXPECT_EQ(t->launches[0].thread, t->ranges[0].thread);
}

TEST(ProfileRecorderTest, StoresHostMemoryEventsOnTheThreadOfTheirNvtxRangesAndTheHostDevice) {
  test::ScratchDir dir;
  auto recorder = startRecorder(dir.file("run.sqlite"));
  ASSERT_TRUE(recorder);
  const auto tid = static_cast<std::int64_t>(syscall(SYS_gettid));
  nvtxRangePushA("fc1 linear forward");
  trace::MemoryEvent allocation;
  allocation.time_ns = 1000;
  allocation.bytes = 4096;
  allocation.address = 0x5000;
  allocation.total_allocated = 4096;
  allocation.total_reserved = 8192;
  allocation.device_kind = trace::DeviceKind::kCpu;
  recorder->hostMemoryEvent(allocation, getpid(), tid);
  nvtxRangePop();
  trace::MemoryEvent free = allocation;
  free.time_ns = 2000;
  free.bytes = -4096;
  free.total_allocated = 0;
  recorder->hostMemoryEvent(free, getpid(), tid);
  ASSERT_TRUE(recorder->stop().ok());
  auto t = trace::db::readProfile(dir.file("run.sqlite"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->memory_events.size(), 2u);
  EXPECT_EQ(t->memory_events[0].bytes, 4096);
  EXPECT_EQ(t->memory_events[0].total_reserved, 8192);
  EXPECT_EQ(t->memory_events[1].bytes, -4096);
  EXPECT_EQ(t->memory_events[1].address, 0x5000u);
  EXPECT_EQ(t->memory_events[0].pid, getpid());
  ASSERT_EQ(t->ranges.size(), 1u);
  EXPECT_EQ(t->memory_events[0].thread, t->ranges[0].thread);
  EXPECT_EQ(t->memory_events[1].thread, t->ranges[0].thread);
  // The host's device row, which CPU memory events are on (device 0 of kind CPU).
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].kind, trace::DeviceKind::kCpu);
  EXPECT_EQ(t->devices[0].id, 0u);
}

TEST(ProfileRecorderTest, RefusesASecondRecordingWhileOneRuns) {
  test::ScratchDir dir;
  auto first = startRecorder(dir.file("a.sqlite"));
  ASSERT_TRUE(first);
  RecorderOptions options;
  options.path = dir.file("b.sqlite");
  auto second = ProfileRecorder::start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("already running"), std::string::npos);
  EXPECT_TRUE(first->stop().ok());
}

TEST(ProfileRecorderTest, NamesTheFileWhenTheProfileCannotBeCreated) {
  RecorderOptions options;
  options.path = "/nonexistent-folder/run.sqlite";
  auto recorder = ProfileRecorder::start(options);
  ASSERT_FALSE(recorder.ok());
  EXPECT_NE(recorder.error().message.find("/nonexistent-folder/run.sqlite"), std::string::npos)
      << recorder.error().message;
}

}  // namespace
}  // namespace ampscope::collector
