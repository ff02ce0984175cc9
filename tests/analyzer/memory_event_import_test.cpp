// Memory events read into the trace model: Kineto's "[memory]" instant events in both forms and
// Nsight Systems' CUDA memory usage events, with what each importer does with values it cannot use.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "../test_support.h"
#include "analyzer/import/kineto/kineto_memory_event.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "analyzer/import/trace_importer.h"
#include "sqlite_importer_fixture.h"

namespace ampscope::analyzer::import {
namespace {

using trace::DeviceKind;
using trace::MemoryEvent;

trace::Trace importJson(const test::ScratchDir& dir, const std::string& json, unsigned threads = 1) {
  auto imported = importTrace(dir.write("trace.json", json), {.progress = {}, .threads = threads});
  EXPECT_TRUE(imported.ok()) << imported.error().message;
  return imported.ok() ? std::move(imported).value() : trace::Trace{};
}

// A Kineto file of the given events, with one operator so that it is a profiler's trace.
std::string kinetoFile(std::string_view events, std::string_view top_level = "") {
  return fmt::format(R"({{"schemaVersion": 1, {}"traceEvents": [
  {{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 8, "ts": 100, "dur": 50}},
  {}
]}})",
                     top_level, events);
}

std::uint64_t notUnderstood(const trace::Trace& t, const std::string& reason) {
  const auto found = t.import_stats.not_understood.find(reason);
  return found == t.import_stats.not_understood.end() ? 0 : found->second;
}

const trace::Thread& threadOf(const trace::Trace& t, const MemoryEvent& m) {
  return t.threads.at(static_cast<std::size_t>(m.thread));
}

// --- Kineto: the 2021 form ----------------------------------------------------------------------

// As PyTorch 1.8/1.9 wrote them (the V100 ResNet traces): Bytes only, whole microseconds.
constexpr std::string_view k2021Events = R"(
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 110, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 4}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 9, "ts": 120, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1048576}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 130, "args": {"Device Type": 1, "Device Id": 3, "Bytes": -512}})";

TEST(MemoryEventImportTest, The2021FormGivesAllocationsAndFreesOnTheHostAndEachGpu) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(k2021Events));
  ASSERT_EQ(t.memory_events.size(), 3u);
  const MemoryEvent& host = t.memory_events[0];
  EXPECT_EQ(host.device_kind, DeviceKind::kCpu);
  EXPECT_EQ(host.device, 0u);  // the host, though PyTorch writes -1
  EXPECT_EQ(host.bytes, 4);
  EXPECT_EQ(host.time_ns, 110'000);
  const MemoryEvent& allocation = t.memory_events[1];
  EXPECT_EQ(allocation.device_kind, DeviceKind::kGpu);
  EXPECT_EQ(allocation.device, 0u);
  EXPECT_EQ(allocation.bytes, 1048576);
  const MemoryEvent& free = t.memory_events[2];
  EXPECT_EQ(free.device_kind, DeviceKind::kGpu);
  EXPECT_EQ(free.device, 3u);
  EXPECT_EQ(free.bytes, -512);
  for (const MemoryEvent& m : t.memory_events) {
    // The 2021 form records neither totals nor addresses.
    EXPECT_EQ(m.total_allocated, MemoryEvent::kNotRecorded);
    EXPECT_EQ(m.total_reserved, MemoryEvent::kNotRecorded);
    EXPECT_EQ(m.address, 0u);
    EXPECT_EQ(m.pid, 7);
    ASSERT_NE(m.thread, trace::kNone);
    EXPECT_EQ(threadOf(t, m).pid, 7);
  }
  EXPECT_EQ(threadOf(t, allocation).tid, 9);
  EXPECT_EQ(threadOf(t, free).tid, 8);
  EXPECT_EQ(t.import_stats.skipped.count("instant events '[memory]'"), 0u);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
  EXPECT_EQ(t.import_stats.events_imported, 4u);  // the operator and the three memory events
}

// --- Kineto: the newer form ---------------------------------------------------------------------

// As PyTorch 2.x writes them (the H100 ViT trace): totals, the address, the profiler's event
// index, fractional microseconds from baseTimeNanoseconds.
constexpr std::string_view kNewerEvents = R"(
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 140.125,
   "args": {"Total Reserved": 8589934592, "Total Allocated": 6442450944, "Bytes": 2097152, "Addr": 136093868752896,
            "Device Id": 1, "Device Type": 1, "Ev Idx": 1259}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 150.5,
   "args": {"Total Reserved": 0, "Total Allocated": 16, "Bytes": -8, "Addr": -140737488355328,
            "Device Id": -1, "Device Type": 0, "Ev Idx": 1285}})";

TEST(MemoryEventImportTest, TheNewerFormKeepsTheAddressAndTheAllocatorsTotals) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(kNewerEvents, R"("baseTimeNanoseconds": 1700000000000000000, )"));
  ASSERT_EQ(t.memory_events.size(), 2u);
  const MemoryEvent& gpu = t.memory_events[0];
  EXPECT_EQ(gpu.time_ns, 1700000000000000000 + 140'125);
  EXPECT_EQ(gpu.device_kind, DeviceKind::kGpu);
  EXPECT_EQ(gpu.device, 1u);
  EXPECT_EQ(gpu.bytes, 2097152);
  EXPECT_EQ(gpu.address, 136093868752896u);
  EXPECT_EQ(gpu.total_allocated, 6442450944);  // past 32 bits, unchanged
  EXPECT_EQ(gpu.total_reserved, 8589934592);
  const MemoryEvent& host = t.memory_events[1];
  EXPECT_EQ(host.device_kind, DeviceKind::kCpu);
  EXPECT_EQ(host.bytes, -8);
  EXPECT_EQ(host.total_allocated, 16);
  EXPECT_EQ(host.total_reserved, 0);  // the CPU allocator reserves nothing: 0 is a value
  // PyTorch writes the address as a signed intptr_t: its bits are the address.
  EXPECT_EQ(host.address, static_cast<std::uint64_t>(std::int64_t{-140737488355328}));
  EXPECT_TRUE(t.import_stats.not_understood.empty());
}

TEST(MemoryEventImportTest, AnAmdGpusAllocationsMarkedHipAreTheGpus) {
  // As ROCm builds of PyTorch 2.x write them (the MI300 traces of 2025), with an arg of their own.
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 150.25,
   "args": {"Total Reserved": 291504128, "Total Allocated": 182526976, "Bytes": 1204224, "Device Id": 1, "Device Type": 6,
            "Addr": 140046054457344, "finished": true, "Ev Idx": 1382}})"));
  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].device_kind, DeviceKind::kGpu);
  EXPECT_EQ(t.memory_events[0].device, 1u);
  EXPECT_EQ(t.memory_events[0].total_reserved, 291504128);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
}

TEST(MemoryEventImportTest, AMemoryEventIsTimedLikeTheOperatorAtTheSameTimestamp) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 8, "ts": 100, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 64}})",
                                                    R"("baseTimeNanoseconds": 1600000000000000000, )"));
  ASSERT_EQ(t.memory_events.size(), 1u);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.memory_events[0].time_ns, t.ranges[0].start_ns);
  EXPECT_EQ(t.memory_events[0].thread, t.ranges[0].thread);
}

TEST(MemoryEventImportTest, NumbersWrittenAsStringsAreRead) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "name": "[memory]", "pid": "7", "tid": "8", "ts": "160",
   "args": {"Device Type": "1", "Device Id": "2", "Bytes": "-4096", "Addr": "0x7f3a00000000", "Total Allocated": "1.6e3"}})"));
  ASSERT_EQ(t.memory_events.size(), 1u);
  const MemoryEvent& m = t.memory_events[0];
  EXPECT_EQ(m.device, 2u);
  EXPECT_EQ(m.bytes, -4096);
  EXPECT_EQ(m.address, 0x7f3a00000000u);
  EXPECT_EQ(m.total_allocated, 1600);
  EXPECT_EQ(m.time_ns, 160'000);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
}

// --- Kineto: values that cannot be used ---------------------------------------------------------

TEST(MemoryEventImportTest, ADeviceTypeOtherThanTheCpuAndCudaIsCountedWithItsPlaceAndLeftOut) {
  test::ScratchDir dir;
  const std::string mps =
      R"({"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 170, "args": {"Device Type": 13, "Device Id": 0, "Bytes": 64}})";
  const std::string json = kinetoFile(mps + ",\n" + std::string(k2021Events.substr(1)) + ",\n" + mps);
  const trace::Trace t = importJson(dir, json);
  EXPECT_EQ(t.memory_events.size(), 3u);
  const std::string reason =
      "'[memory]' events of \"Device Type\" 13 (c10::DeviceType MPS): only the CPU (0), CUDA (1) and HIP (6) are read (left out)";
  EXPECT_EQ(notUnderstood(t, reason), 2u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), fmt::format("traceEvents element at byte offset {}", json.find(mps)));
}

TEST(MemoryEventImportTest, AnEventWithoutUsableBytesIsCountedAndLeftOut) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 1, "args": {"Device Type": 1, "Device Id": 0}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 2, "args": {"Device Type": 1, "Device Id": 0, "Bytes": "lots"}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 3, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1.5}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 4, "args": {"Device Type": 1, "Device Id": 0, "Bytes": [64]}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1e999}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -9223372036854775808}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 6, "args": "none"},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 7, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 8}})"));
  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].bytes, 8);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events without \"Bytes\" (left out)"), 2u);  // the first and "none"
  EXPECT_EQ(notUnderstood(t, "'[memory]' events whose \"Bytes\" is not a byte count (left out)"), 5u);
  EXPECT_EQ(t.import_stats.first_place.count("'[memory]' events without \"Bytes\" (left out)"), 1u);
}

TEST(MemoryEventImportTest, AnEventWithoutADeviceIsCountedAndLeftOut) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 1, "args": {"Device Id": 0, "Bytes": 64}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 2, "args": {"Device Type": "cuda", "Device Id": 0, "Bytes": 64}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 3, "args": {"Device Type": 1, "Device Id": -1, "Bytes": 64}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 4, "args": {"Device Type": 1, "Bytes": 64}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 64}})"));
  EXPECT_TRUE(t.memory_events.empty());
  EXPECT_EQ(notUnderstood(t, "'[memory]' events without an integer \"Device Type\" (left out)"), 2u);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events on a GPU without a device index >= 0 in \"Device Id\" (left out)"), 2u);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events without a readable \"ts\" (left out)"), 1u);
}

TEST(MemoryEventImportTest, ABadTotalOrAddressIsCountedAndTheEventKeptWithoutIt) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 1,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 64, "Total Allocated": -5, "Total Reserved": "much", "Addr": "nowhere"}},
  {"ph": "i", "name": "[memory]", "pid": 7, "tid": 8, "ts": 2,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": -64, "Total Allocated": 1.5, "Total Reserved": null, "Addr": {"at": 1}}})"));
  ASSERT_EQ(t.memory_events.size(), 2u);
  for (const MemoryEvent& m : t.memory_events) {
    EXPECT_EQ(m.total_allocated, MemoryEvent::kNotRecorded);
    EXPECT_EQ(m.total_reserved, MemoryEvent::kNotRecorded);
    EXPECT_EQ(m.address, 0u);
    EXPECT_EQ(m.device_kind, DeviceKind::kGpu);
  }
  EXPECT_EQ(t.memory_events[0].bytes, 64);
  EXPECT_EQ(t.memory_events[1].bytes, -64);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events whose \"Total Allocated\" is no size (kept, the total not recorded)"), 2u);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events whose \"Total Reserved\" is no size (kept, the total not recorded)"), 2u);
  EXPECT_EQ(notUnderstood(t, "'[memory]' events whose \"Addr\" is not a number (kept, the address not recorded)"), 2u);
}

TEST(MemoryEventImportTest, OtherInstantEventsAreStillCountedAsSkipped) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, kinetoFile(R"(
  {"ph": "i", "cat": "cpu_instant_event", "name": "[OutOfMemory]", "pid": 7, "tid": 8, "ts": 1,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 85899345920, "Total Allocated": 1024, "Total Reserved": 2048}})"));
  EXPECT_TRUE(t.memory_events.empty());  // a failed allocation changes nothing in memory
  EXPECT_EQ(t.import_stats.skipped.at("instant events '[OutOfMemory]'"), 1u);
}

TEST(MemoryEventImportTest, TheArgsReaderNamesWhatItCouldNotUse) {
  // The rules on their own, without a file.
  const auto number = [](std::string_view text) { return JsonScalar{text, JsonScalar::Form::kNumber}; };
  KinetoMemoryArgs args;
  args.bytes = number("64");
  args.device_type = number("20");
  MemoryEvent m;
  MemoryEventReading reading = readMemoryArgs(args, m);
  EXPECT_FALSE(reading.usable);
  EXPECT_TRUE(reading.has(MemoryArgProblem::kDeviceTypeNotRead));
  EXPECT_EQ(memoryArgProblemReason(MemoryArgProblem::kDeviceTypeNotRead, reading.device_type),
            "'[memory]' events of \"Device Type\" 20 (c10::DeviceType PrivateUse1): only the CPU (0), CUDA (1) and HIP (6) "
            "are read (left out)");
  EXPECT_EQ(memoryArgProblemReason(MemoryArgProblem::kDeviceTypeNotRead, 99),
            "'[memory]' events of \"Device Type\" 99: only the CPU (0), CUDA (1) and HIP (6) are read (left out)");
  args.device_type = number("1");
  args.device_id = number("0");
  args.address = number("18446744073709551615");  // an unsigned writer's 2^64 - 1
  args.total_allocated = number("9223372036854775808");  // 2^63: no int64 size
  reading = readMemoryArgs(args, m);
  EXPECT_TRUE(reading.usable);
  EXPECT_EQ(m.address, 18446744073709551615u);
  EXPECT_TRUE(reading.has(MemoryArgProblem::kTotalAllocatedNotASize));
  EXPECT_EQ(m.total_allocated, MemoryEvent::kNotRecorded);
}

// --- Kineto: the parallel parse -------------------------------------------------------------------

// Memory events on labelled threads of several processes among operators, spread over many batches.
std::string manyMemoryEvents(int count) {
  std::string events;
  for (int i = 0; i < count; ++i) {
    if (i > 0) events += ",\n";
    if (i % 3 == 0) {
      events += fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "aten::op{}", "pid": 7, "tid": "worker {}", "ts": {}, "dur": 3}})",
                            i % 17, i % 5, 1000 + i * 10);
    } else {
      events += fmt::format(R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": "proc {}", )"
                            R"("tid": "worker {}", "ts": {}.5, "args": {{"Total Reserved": {}, "Total Allocated": {}, )"
                            R"("Bytes": {}, "Addr": {}, "Device Id": {}, "Device Type": {}, "Ev Idx": {}}}}})",
                            i % 2, i % 11, 1001 + i * 10, 1 << 30, i * 512, i % 4 == 1 ? 512 : -512,
                            140000000000000 + i * 4096, i % 3 == 1 ? 0 : -1, i % 3 == 1 ? 1 : 0, i);
    }
  }
  return events;
}

TEST(MemoryEventImportTest, ManyBatchesGiveTheSameMemoryEventsOnOneThreadAndOnSeveral) {
  test::ScratchDir dir;
  const std::string json = kinetoFile(manyMemoryEvents(60000), R"("baseTimeNanoseconds": 1700000000000000000, )");
  ASSERT_GT(json.size(), 8u << 20) << "the trace should span several batches";
  const trace::Trace one = importJson(dir, json, 1);
  ASSERT_EQ(one.memory_events.size(), 40000u);
  for (unsigned threads : {2u, 4u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    const trace::Trace several = importJson(dir, json, threads);
    EXPECT_EQ(several.threads, one.threads);
    ASSERT_EQ(several.memory_events.size(), one.memory_events.size());
    EXPECT_TRUE(several.memory_events == one.memory_events);
    EXPECT_TRUE(several.import_stats == one.import_stats);
  }
}

// --- Kineto: real traces --------------------------------------------------------------------------

TEST(MemoryEventImportTest, TheV100ResNetTraceHasItsMemoryEventsOnTheGpuAndTheHost) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto imported = importTrace(path, {.progress = {}, .threads = 1});
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const auto& events = imported->memory_events;
  ASSERT_EQ(events.size(), 12838u);
  const auto on = [&](DeviceKind kind) {
    return std::count_if(events.begin(), events.end(), [&](const MemoryEvent& m) { return m.device_kind == kind; });
  };
  EXPECT_EQ(on(DeviceKind::kGpu), 8220);
  EXPECT_EQ(on(DeviceKind::kCpu), 4618);
  EXPECT_TRUE(std::all_of(events.begin(), events.end(), [](const MemoryEvent& m) {
    return m.device == 0 && m.thread != trace::kNone && m.pid == 25738 && m.total_allocated == MemoryEvent::kNotRecorded;
  }));
  EXPECT_TRUE(std::is_sorted(events.begin(), events.end(),
                             [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; }));
  EXPECT_TRUE(imported->import_stats.not_understood.empty());
  EXPECT_EQ(imported->import_stats.skipped.count("instant events '[memory]'"), 0u);
}

TEST(MemoryEventImportTest, TheH100VitTraceKeepsItsLargestTotalsUnchanged) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-h100-vit-memory/falconsai_nsfw_vit_bf16.json.gz");
  auto one = importTrace(path, {.progress = {}, .threads = 1});
  ASSERT_TRUE(one.ok()) << one.error().message;
  const auto& events = one->memory_events;
  ASSERT_EQ(events.size(), 620u);
  std::int64_t most_allocated = 0;
  std::int64_t most_reserved = 0;
  std::int64_t gpu_bytes = 0;
  std::size_t on_gpu = 0;
  for (const MemoryEvent& m : events) {
    EXPECT_NE(m.address, 0u);
    if (m.device_kind != DeviceKind::kGpu) continue;
    ++on_gpu;
    gpu_bytes += m.bytes;
    most_allocated = std::max(most_allocated, m.total_allocated);
    most_reserved = std::max(most_reserved, m.total_reserved);
  }
  EXPECT_EQ(on_gpu, 572u);
  EXPECT_EQ(most_allocated, 231332864);
  EXPECT_EQ(most_reserved, 245366784);
  EXPECT_EQ(gpu_bytes, 0);  // every block allocated in the window is freed in it
  EXPECT_TRUE(one->import_stats.not_understood.empty());
  auto several = importTrace(path, {.progress = {}, .threads = 4});
  ASSERT_TRUE(several.ok()) << several.error().message;
  EXPECT_TRUE(several->memory_events == events);
}

// --- Nsight Systems ---------------------------------------------------------------------------------

// The fixture's process (tests/data/nsys_small.sql): globalPid (1 << 48) | (24817 << 24).
constexpr std::int64_t kGlobalPid = 281891336880128;
constexpr std::int64_t kOtherGlobalPid = 281891336880128 + (1ll << 24);  // pid 24818

// CUDA_GPU_MEMORY_USAGE_EVENTS as Nsight Systems exports it with --cuda-memory-usage=true.
constexpr const char* kMemoryUsageTable = R"(
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (
  start INTEGER NOT NULL, globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  address INTEGER NOT NULL, pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER, localMemoryPoolAddress INTEGER,
  localMemoryPoolReleaseThreshold INTEGER, localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER,
  importedMemoryPoolAddress INTEGER, importedMemoryPoolProcessId INTEGER);
)";

std::string memoryRow(std::int64_t start, std::int64_t global_pid, std::int64_t device, std::int64_t address,
                      std::int64_t bytes, int kind, int operation, std::string_view correlation) {
  return fmt::format("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, "
                     "memKind, memoryOperationType, correlationId) VALUES ({}, {}, {}, 1, {}, 0, {}, {}, {}, {});\n",
                     start, global_pid, device, address, bytes, kind, operation, correlation);
}

class NsysMemoryUsageTest : public test::SqliteImporterTest<importNsightSystems> {
 protected:
  void SetUp() override {
    const std::string sql = test::readFile(test::testData("nsys_small.sql"));
    ASSERT_FALSE(sql.empty()) << "cannot read " << test::testData("nsys_small.sql");
    ASSERT_NO_FATAL_FAILURE(create(sql));
  }
};

TEST_F(NsysMemoryUsageTest, AnExportWithoutTheTableHasNoMemoryEvents) {
  const trace::Trace t = import();
  EXPECT_TRUE(t.memory_events.empty());
  EXPECT_FALSE(t.kernels.empty());
}

TEST_F(NsysMemoryUsageTest, AllocationsAndFreesOfDeviceMemoryBecomeMemoryEventsWithTheCallingThread) {
  ASSERT_NO_FATAL_FAILURE(alter(std::string(kMemoryUsageTable) +
                                memoryRow(1000020000, kGlobalPid, 0, 0x7f0000000000, 1 << 20, 2, 0, "101") +  // cudaMemcpyAsync's id
                                memoryRow(1000625000, kGlobalPid, 1, 0x7f0000000000, 1 << 20, 2, 1, "107") +  // a driver call's
                                memoryRow(1000001000, kGlobalPid, 0, 0x7e0000000000, 4096, 5, 0, "NULL") +    // module static
                                memoryRow(1000002000, kGlobalPid, 0, -4096, 8192, 3, 0, "999")));             // an array
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_events.size(), 4u);  // sorted by time
  const MemoryEvent& statics = t.memory_events[0];
  EXPECT_EQ(statics.bytes, 4096);
  EXPECT_EQ(statics.thread, trace::kNone);  // no call
  const MemoryEvent& array = t.memory_events[1];
  EXPECT_EQ(array.address, static_cast<std::uint64_t>(std::int64_t{-4096}));  // SQLite's signed INTEGER: its bits
  EXPECT_EQ(array.thread, trace::kNone);  // no call with its correlation id
  const MemoryEvent& allocation = t.memory_events[2];
  EXPECT_EQ(allocation.time_ns, 1000020000);
  EXPECT_EQ(allocation.bytes, 1 << 20);
  EXPECT_EQ(allocation.address, 0x7f0000000000u);
  EXPECT_EQ(allocation.device, 0u);
  EXPECT_EQ(allocation.pid, 24817);
  const MemoryEvent& free = t.memory_events[3];
  EXPECT_EQ(free.bytes, -(1 << 20));
  EXPECT_EQ(free.device, 1u);
  for (const MemoryEvent* m : {&allocation, &free}) {
    EXPECT_EQ(m->device_kind, DeviceKind::kGpu);
    EXPECT_EQ(m->total_allocated, MemoryEvent::kNotRecorded);
    EXPECT_EQ(m->total_reserved, MemoryEvent::kNotRecorded);
    ASSERT_NE(m->thread, trace::kNone);
    EXPECT_EQ(threadOf(t, *m).pid, 24817);
    EXPECT_EQ(threadOf(t, *m).tid, 24817);
  }
  // The call's thread, whichever of its calls' rows (runtime or driver) has the id.
  const auto call = std::find_if(t.launches.begin(), t.launches.end(),
                                 [](const trace::LaunchCall& l) { return l.correlation_id == 107; });
  ASSERT_NE(call, t.launches.end());
  EXPECT_EQ(free.thread, call->thread);
}

TEST_F(NsysMemoryUsageTest, ACorrelationIdIsLookedUpInTheEventsOwnProcess) {
  ASSERT_NO_FATAL_FAILURE(
      alter(std::string(kMemoryUsageTable) + memoryRow(1000020000, kOtherGlobalPid, 0, 4096, 64, 2, 0, "101")));
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].pid, 24818);
  EXPECT_EQ(t.memory_events[0].thread, trace::kNone);  // 101 is a call of process 24817
}

TEST_F(NsysMemoryUsageTest, MemoryThatIsNotTheGpusOwnIsSkippedByKindAndBadRowsAreCountedWithTheirPlace) {
  ASSERT_NO_FATAL_FAILURE(alter(std::string(kMemoryUsageTable) +
                                memoryRow(1000010000, kGlobalPid, 0, 4096, 64, 1, 0, "101") +   // pinned host
                                memoryRow(1000010001, kGlobalPid, 0, 4096, 64, 4, 0, "101") +   // managed
                                memoryRow(1000010002, kGlobalPid, 0, 4096, 64, 6, 1, "101") +   // managed static
                                memoryRow(1000010003, kGlobalPid, 0, 4096, 64, 0, 0, "101") +   // pageable
                                memoryRow(1000010004, kGlobalPid, 0, 4096, 64, 7, 0, "101") +   // unknown kind
                                memoryRow(1000010005, kGlobalPid, 0, 4096, 64, 2, 2, "101") +   // unknown operation
                                memoryRow(1000010006, kGlobalPid, 0, 4096, -64, 2, 0, "101") +  // negative size
                                memoryRow(1000010007, kGlobalPid, -1, 4096, 64, 2, 0, "101") +  // no device
                                memoryRow(1000010008, kGlobalPid, 0, 4096, 64, 2, 0, "101")));
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].time_ns, 1000010008);
  const auto& skipped = t.import_stats.skipped;
  EXPECT_EQ(skipped.at("CUDA_GPU_MEMORY_USAGE_EVENTS events of pinned host memory: not the GPU's own memory"), 1u);
  EXPECT_EQ(skipped.at("CUDA_GPU_MEMORY_USAGE_EVENTS events of managed memory (it migrates between host and GPU): not the "
                       "GPU's own memory"),
            2u);
  EXPECT_EQ(skipped.at("CUDA_GPU_MEMORY_USAGE_EVENTS events of pageable host memory: not the GPU's own memory"), 1u);
  const std::string unknown_kind = "CUDA_GPU_MEMORY_USAGE_EVENTS events of memory kind 7: not known to be the GPU's (left out)";
  EXPECT_EQ(notUnderstood(t, unknown_kind), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(unknown_kind), "table 'CUDA_GPU_MEMORY_USAGE_EVENTS' row 5");
  EXPECT_EQ(notUnderstood(t, "CUDA_GPU_MEMORY_USAGE_EVENTS events of operation type 2 (left out)"), 1u);
  EXPECT_EQ(notUnderstood(t, "CUDA_GPU_MEMORY_USAGE_EVENTS events whose size is negative (left out)"), 1u);
  EXPECT_EQ(notUnderstood(t, "CUDA_GPU_MEMORY_USAGE_EVENTS events without a device id >= 0 (left out)"), 1u);
}

TEST_F(NsysMemoryUsageTest, EveryRowOfTheTableIsReadAndTheOnesKeptAreImported) {
  const trace::Trace before = import();
  ASSERT_NO_FATAL_FAILURE(alter(std::string(kMemoryUsageTable) +
                                memoryRow(1000020000, kGlobalPid, 0, 4096, 64, 2, 0, "101") +
                                memoryRow(1000020001, kGlobalPid, 0, 4096, 64, 1, 0, "101")));
  const trace::Trace t = import();
  EXPECT_EQ(t.import_stats.events_read, before.import_stats.events_read + 2);
  EXPECT_EQ(t.import_stats.events_imported, before.import_stats.events_imported + 1);
}

}  // namespace
}  // namespace ampscope::analyzer::import
