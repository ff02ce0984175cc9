#include "analyzer/import/nsight/nvprof_importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "sqlite_importer_fixture.h"

namespace ampscope::analyzer::import {
namespace {

// nvprof writes CUPTI's timestamps as they are: nanoseconds since the Unix epoch.
constexpr std::int64_t kT0 = 1'583'975'499'355'000'000;
constexpr std::int64_t kPid = 4242;
// The thread as the marker's objectId holds it (unsigned); the API tables store it signed.
constexpr std::int64_t kTid = 0xA566D000;
constexpr std::int64_t kLastEndNs = kT0 + 300'000;  // the end of the last record: the synchronize call

// One process's nvprof profile as PyProf read them: a V100, an FP16 GEMM launched through the
// runtime and an elementwise kernel through the driver, both inside a PyProf marker and the
// autograd marker it encloses, a kernel whose launch the file lacks, a pageable copy, a memset,
// a stream and a context synchronisation and an instantaneous marker. Columns as nvprof writes
// them, trimmed to those the importer reads (and _id_, which numbers rows).
constexpr const char* kProfileSql = R"sql(
CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);
INSERT INTO StringTable (value) VALUES
  ('Tesla V100-SXM2-16GB'),
  ('volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn'),
  ('elementwise_kernel'),
  ('{''mod'': ''torch.nn.functional'', ''op'': ''linear'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (35, 200), ''dtype'': ''float16''}, {''name'': '''', ''type'': ''tensor'', ''shape'': (100, 200), ''dtype'': ''float16''}]}'),
  ('linear, seq = 120'),
  ('checkpoint');
CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, globalMemoryBandwidth INT NOT NULL,
  globalMemorySize INT NOT NULL, coreClockRate INT NOT NULL, numMultiprocessors INT NOT NULL,
  computeCapabilityMajor INT NOT NULL, computeCapabilityMinor INT NOT NULL, id INT NOT NULL, name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (1, 898048000, 16914055168, 1530000, 80, 7, 0, 0, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (_id_ INTEGER PRIMARY KEY AUTOINCREMENT,
  registersPerThread INT NOT NULL, start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, streamId INT NOT NULL,
  gridX INT NOT NULL, gridY INT NOT NULL, gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL,
  blockZ INT NOT NULL, staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL,
  correlationId INT NOT NULL, name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES
  (1, 126, 1583975499355100000, 1583975499355250000, 0, 7, 8, 4, 1, 128, 1, 1, 16384, 8192, 11, 2),
  (2, 32, 1583975499355260000, 1583975499355270000, 0, 7, 64, 1, 1, 128, 1, 1, 0, 0, 13, 3),
  (3, 32, 1583975499355280000, 1583975499355281000, 0, 14, 16, 1, 1, 256, 1, 1, 0, 0, 99, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL, correlationId INT NOT NULL,
  returnValue INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1, 41, 1583975499355020000, 1583975499355030000, 4242, -1519988736, 10, 0),
  (2, 211, 1583975499355060000, 1583975499355070000, 4242, -1519988736, 11, 0),
  (3, 51, 1583975499355075000, 1583975499355080000, 4242, -1519988736, 14, 0),
  (4, 131, 1583975499355282000, 1583975499355290000, 4242, -1519988736, 15, 0),
  (5, 165, 1583975499355291000, 1583975499355300000, 4242, -1519988736, 16, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL, correlationId INT NOT NULL,
  returnValue INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (1, 307, 1583975499355082000, 1583975499355085000, 4242, -1519988736, 13, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT NOT NULL,
  srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL, bytes INT NOT NULL, start INT NOT NULL,
  end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 1, 1, 3, 0, 4096, 1583975499355040000, 1583975499355045000, 0, 1, 7, 10);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value INT NOT NULL,
  bytes INT NOT NULL, start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL,
  streamId INT NOT NULL, correlationId INT NOT NULL, flags INT NOT NULL, memoryKind INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 0, 512, 1583975499355090000, 1583975499355091000, 0, 1, 7, 14, 0, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, type INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, correlationId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
  cudaEventId INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
  (1, 3, 1583975499355283000, 1583975499355289000, 15, 1, 7, -1),
  (2, 4, 1583975499355292000, 1583975499355299000, 16, 1, -1, -1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER (_id_ INTEGER PRIMARY KEY AUTOINCREMENT, flags INT NOT NULL,
  timestamp INT NOT NULL, id INT NOT NULL, objectKind INT NOT NULL, objectId BLOB NOT NULL, name INT NOT NULL,
  domain INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES
  (1, 2, 1583975499355050000, 1, 2, X'9210000000D066A500000000', 4, 0),
  (2, 2, 1583975499355055000, 2, 2, X'9210000000D066A500000000', 5, 0),
  (3, 4, 1583975499355088000, 2, 2, X'9210000000D066A500000000', 0, 0),
  (4, 4, 1583975499355089000, 1, 2, X'9210000000D066A500000000', 0, 0),
  (5, 1, 1583975499355285000, 3, 2, X'9210000000D066A500000000', 6, 0);
)sql";

constexpr const char* kPyProfText =
    "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor', 'shape': (35, 200), "
    "'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (100, 200), 'dtype': 'float16'}]}";

class NvprofImporterTest : public test::SqliteImporterTest<importNvprof> {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(create(kProfileSql)); }

  static const trace::Kernel* kernelOf(const trace::Trace& t, std::uint64_t correlation_id) {
    for (const trace::Kernel& k : t.kernels) {
      if (k.correlation_id == correlation_id) return &k;
    }
    return nullptr;
  }

  // The count for `reason`, and its first place, which must name table and row.
  static void expectCounted(const trace::Trace& t, const std::string& reason, std::uint64_t count,
                            const std::string& first_place) {
    const auto counted = t.import_stats.not_understood.find(reason);
    ASSERT_NE(counted, t.import_stats.not_understood.end()) << "not counted: " << reason;
    EXPECT_EQ(counted->second, count) << reason;
    const auto place = t.import_stats.first_place.find(reason);
    ASSERT_NE(place, t.import_stats.first_place.end()) << "no first place for: " << reason;
    EXPECT_EQ(place->second, first_place) << reason;
  }
};

TEST_F(NvprofImporterTest, RecognisesAProfileByItsStringTableAndAKernelTable) {
  EXPECT_TRUE(isNvprofDatabase(*db_));
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL RENAME TO CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_TRUE(isNvprofDatabase(*db_)) << "nvprof's serialised kernels (--concurrent-kernels off)";
  alter("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_FALSE(isNvprofDatabase(*db_)) << "no kernel table";
}

TEST_F(NvprofImporterTest, DoesNotRecogniseAnNsightSystemsExport) {
  // Nsight Systems exports have CUPTI_ACTIVITY_KIND_KERNEL too, but StringIds for their strings.
  alter("ALTER TABLE StringTable RENAME TO StringIds");
  EXPECT_FALSE(isNvprofDatabase(*db_));
}

TEST_F(NvprofImporterTest, ReadsKernelsWithTheirNamesFromStringTable) {
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 3u);
  const trace::Kernel& gemm = t.kernels[0];
  EXPECT_EQ(t.str(gemm.name), "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn");
  EXPECT_EQ(gemm.device, 0u);
  EXPECT_EQ(gemm.stream, 7u);
  EXPECT_EQ(gemm.correlation_id, 11u);
  EXPECT_EQ(gemm.grid, (std::array<std::uint32_t, 3>{8, 4, 1}));
  EXPECT_EQ(gemm.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(gemm.registers_per_thread, 126u);
  EXPECT_EQ(gemm.shared_memory_bytes, 16384u + 8192u);  // static + dynamic
  EXPECT_EQ(t.str(t.kernels[1].name), "elementwise_kernel");
  EXPECT_EQ(t.str(t.kernels[2].name), "elementwise_kernel");
  EXPECT_EQ(t.kernels[2].stream, 14u);
}

TEST_F(NvprofImporterTest, KeepsTimesInNanosecondsSinceTheEpochAsRecorded) {
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.kernels[0].start_ns, kT0 + 100'000);
  EXPECT_EQ(t.kernels[0].end_ns, kT0 + 250'000);
  ASSERT_FALSE(t.launches.empty());
  EXPECT_EQ(t.launches[0].start_ns, kT0 + 20'000);
  EXPECT_EQ(t.launches[0].end_ns, kT0 + 30'000);
  ASSERT_FALSE(t.memory_ops.empty());
  EXPECT_EQ(t.memory_ops[0].end_ns - t.memory_ops[0].start_ns, 5'000);
  const trace::Range* op = rangeNamed(t, kPyProfText);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->start_ns, kT0 + 50'000);
  EXPECT_EQ(op->end_ns, kT0 + 89'000);
}

TEST_F(NvprofImporterTest, ReadsTheDeviceWithItsClockInKilohertzAndBandwidthInKilobytesPerSecond) {
  const trace::Trace t = import();
  ASSERT_EQ(t.devices.size(), 1u);
  const trace::Device& v100 = t.devices[0];
  EXPECT_EQ(v100.id, 0u);
  EXPECT_EQ(t.str(v100.name), "Tesla V100-SXM2-16GB");
  EXPECT_EQ(v100.compute_major, 7);
  EXPECT_EQ(v100.compute_minor, 0);
  EXPECT_EQ(v100.sm_count, 80);
  EXPECT_EQ(v100.total_memory_bytes, 16'914'055'168u);
  EXPECT_EQ(v100.sm_clock_khz, 1'530'000);
  EXPECT_EQ(v100.memory_bandwidth_bytes_per_s, 898'048'000'000u);
}

TEST_F(NvprofImporterTest, ADeviceTableWithoutClockOrBandwidthLeavesThemUnknown) {
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_DEVICE DROP COLUMN coreClockRate");
  const trace::Trace t = import();
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].sm_clock_khz, 0);
  EXPECT_EQ(t.devices[0].memory_bandwidth_bytes_per_s, 0u);
  EXPECT_EQ(t.devices[0].sm_count, 80);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
}

TEST_F(NvprofImporterTest, AClockOrBandwidthThatIsNoRateIsCountedAndLeftUnknown) {
  const std::string reason =
      "table 'CUPTI_ACTIVITY_KIND_DEVICE' clock rates or bandwidths that are not a rate (left unknown)";
  struct Case {
    const char* values;
    std::int64_t clock_khz;
    std::uint64_t bandwidth_bytes_per_s;
  };
  for (const Case& c : {Case{"coreClockRate = -1", 0, 898'048'000'000u},
                        Case{"globalMemoryBandwidth = -5", 1'530'000, 0},
                        // KB/s beyond 64 bits in bytes per second.
                        Case{"globalMemoryBandwidth = 9000000000000000000", 1'530'000, 0}}) {
    SCOPED_TRACE(c.values);
    ASSERT_NO_FATAL_FAILURE(create(kProfileSql));
    alter(std::string("UPDATE CUPTI_ACTIVITY_KIND_DEVICE SET ") + c.values);
    const trace::Trace t = import();
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].sm_clock_khz, c.clock_khz);
    EXPECT_EQ(t.devices[0].memory_bandwidth_bytes_per_s, c.bandwidth_bytes_per_s);
    EXPECT_EQ(t.devices[0].sm_count, 80) << "the device is kept";
    expectCounted(t, reason, 1, "table 'CUPTI_ACTIVITY_KIND_DEVICE' row 1");
  }
}

TEST_F(NvprofImporterTest, ReadsRuntimeAndDriverCallsOnTheMarkersThread) {
  const trace::Trace t = import();
  ASSERT_EQ(t.launches.size(), 6u);
  std::vector<std::string> names;
  for (const trace::LaunchCall& l : t.launches) {
    names.emplace_back(t.str(l.name));
    ASSERT_NE(l.thread, trace::kNone);
    // threadId -1519988736 is thread 0xA566D000 read unsigned, as the markers' objectId holds it.
    EXPECT_EQ(t.threads[static_cast<std::size_t>(l.thread)].pid, kPid);
    EXPECT_EQ(t.threads[static_cast<std::size_t>(l.thread)].tid, kTid);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cudaMemcpyAsync", "cudaLaunchKernel", "cudaMemsetAsync", "cuLaunchKernel",
                                             "cudaStreamSynchronize", "cudaDeviceSynchronize"}));
  EXPECT_EQ(t.launches[1].cbid, 211);
  EXPECT_EQ(t.launches[1].api, trace::ApiKind::kRuntime);
  EXPECT_EQ(t.launches[3].api, trace::ApiKind::kDriver);
  EXPECT_EQ(t.launches[3].correlation_id, 13u);
  const trace::Range* op = rangeNamed(t, kPyProfText);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->thread, t.launches[1].thread);
  EXPECT_EQ(t.threads.size(), 1u);
}

TEST_F(NvprofImporterTest, AnUnknownCallbackIdIsKeptUnderItsNumber) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET cbid = 9999 WHERE correlationId = 14;"
        "UPDATE CUPTI_ACTIVITY_KIND_DRIVER SET cbid = 8888");
  const trace::Trace t = import();
  ASSERT_EQ(t.launches.size(), 6u);
  EXPECT_EQ(t.str(t.launches[2].name), "cudaRuntime#9999");
  EXPECT_EQ(t.str(t.launches[3].name), "cudaDriver#8888");
}

TEST_F(NvprofImporterTest, LinksKernelsToTheirLaunchesAndTheInnermostMarkerAroundThem) {
  trace::Trace t = import();
  const CorrelationCounts counts = correlate(t);
  EXPECT_EQ(counts.kernels, 3u);
  EXPECT_EQ(counts.kernels_linked_to_launch, 2u);
  EXPECT_EQ(counts.kernels_attributed_to_op, 2u);
  EXPECT_EQ(t.import_stats.gpu_records_without_launch, 1u);  // the kernel of correlation id 99
  for (std::uint64_t id : {11u, 13u}) {
    SCOPED_TRACE(id);
    const trace::Kernel* k = kernelOf(t, id);
    ASSERT_NE(k, nullptr);
    ASSERT_NE(k->launch, trace::kNone);
    EXPECT_EQ(t.launches[static_cast<std::size_t>(k->launch)].correlation_id, id);
    EXPECT_EQ(k->pid, kPid);
    ASSERT_NE(k->op_range, trace::kNone);
    const trace::Range& op = t.ranges[static_cast<std::size_t>(k->op_range)];
    EXPECT_EQ(t.str(op.name), "linear, seq = 120");
    EXPECT_EQ(op.sequence_number, 120);
  }
  EXPECT_EQ(t.str(t.launches[static_cast<std::size_t>(kernelOf(t, 13)->launch)].name), "cuLaunchKernel");
  const trace::Kernel* unlaunched = kernelOf(t, 99);
  ASSERT_NE(unlaunched, nullptr);
  EXPECT_EQ(unlaunched->launch, trace::kNone);
  EXPECT_EQ(unlaunched->pid, kPid) << "the file is one process's";
}

TEST_F(NvprofImporterTest, PairsMarkerStartsAndEndsByIdIntoRangesWithPyProfsText) {
  const trace::Trace t = import();
  ASSERT_EQ(t.ranges.size(), 3u);
  const trace::Range* call = rangeNamed(t, kPyProfText);
  const trace::Range* autograd = rangeNamed(t, "linear, seq = 120");
  const trace::Range* mark = rangeNamed(t, "checkpoint");
  ASSERT_TRUE(call && autograd && mark);
  EXPECT_EQ(autograd->start_ns, kT0 + 55'000);
  EXPECT_EQ(autograd->end_ns, kT0 + 88'000);  // id 2 ends before id 1, though it started later
  EXPECT_TRUE(encloses(*call, autograd->start_ns, autograd->end_ns));
  EXPECT_EQ(mark->start_ns, kT0 + 285'000);
  EXPECT_EQ(mark->end_ns, mark->start_ns) << "an instantaneous marker is a range of no length";
  // PyProf's text is read once, at import.
  EXPECT_EQ(call->text_form, trace::RangeTextForm::kPyProfOperator);
  EXPECT_EQ(t.str(call->op), "torch.nn.functional.linear");
  EXPECT_EQ(t.str(call->shapes), "[[35,200],[100,200]]");
  EXPECT_EQ(t.str(call->dtypes), "[\"float16\",\"float16\"]");
}

TEST_F(NvprofImporterTest, ReadsPageableCopyMemsetAndSynchronisations) {
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  const trace::MemoryOp& copy = t.memory_ops[0];
  EXPECT_EQ(copy.kind, trace::MemoryOpKind::kMemcpy);
  EXPECT_EQ(copy.direction, trace::CopyDirection::kHostToDevice);
  EXPECT_EQ(copy.src_kind, trace::MemoryKind::kPageable);  // CUPTI's 1, not Nsight's 0
  EXPECT_EQ(copy.dst_kind, trace::MemoryKind::kDevice);
  EXPECT_EQ(copy.bytes, 4096u);
  EXPECT_EQ(copy.stream, 7u);
  EXPECT_EQ(copy.correlation_id, 10u);
  const trace::MemoryOp& set = t.memory_ops[1];
  EXPECT_EQ(set.kind, trace::MemoryOpKind::kMemset);
  EXPECT_EQ(set.dst_kind, trace::MemoryKind::kDevice);
  EXPECT_EQ(set.bytes, 512u);
  EXPECT_EQ(set.correlation_id, 14u);
  ASSERT_EQ(t.synchronizations.size(), 2u);
  EXPECT_EQ(t.synchronizations[0].kind, trace::SyncKind::kStreamSynchronize);
  EXPECT_EQ(t.synchronizations[0].stream, 7u);
  EXPECT_EQ(t.synchronizations[0].correlation_id, 15u);
  EXPECT_EQ(t.synchronizations[1].kind, trace::SyncKind::kContextSynchronize);
  EXPECT_EQ(t.synchronizations[1].stream, 0xffffffffu) << "-1: no stream, the whole context";
}

TEST_F(NvprofImporterTest, KindsCuptiDoesNotDefineAreKeptAsUnknown) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 77, srcKind = 42;"
        "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET type = 9 WHERE _id_ = 1;");
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  EXPECT_EQ(t.memory_ops[0].direction, trace::CopyDirection::kUnknown);
  EXPECT_EQ(t.memory_ops[0].src_kind, trace::MemoryKind::kUnknown);
  EXPECT_EQ(t.memory_ops[0].bytes, 4096u);
  ASSERT_EQ(t.synchronizations.size(), 2u);
  EXPECT_EQ(t.synchronizations[0].kind, trace::SyncKind::kUnknown);
}

TEST_F(NvprofImporterTest, ReadsTheSerialisedKernelTableBesideTheConcurrentOne) {
  alter("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL WHERE _id_ = 1;"
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 50, start = start + 1000000, end = end + 1000000;");
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 4u);
  const trace::Kernel* serial = kernelOf(t, 50);
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(t.str(serial->name), "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn");
  EXPECT_EQ(serial->start_ns, kT0 + 1'100'000);
}

TEST_F(NvprofImporterTest, SetsFormatAndSortsEventsByTime) {
  const trace::Trace t = import();
  EXPECT_EQ(t.format, trace::TraceFormat::kNvprof);
  EXPECT_EQ(t.source_format, trace::TraceFormat::kNvprof);
  EXPECT_EQ(t.format_detail, "nvprof SQLite profile");
  const auto byStart = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  EXPECT_TRUE(std::is_sorted(t.kernels.begin(), t.kernels.end(), byStart));
  EXPECT_TRUE(std::is_sorted(t.launches.begin(), t.launches.end(), byStart));
  EXPECT_TRUE(std::is_sorted(t.ranges.begin(), t.ranges.end(), byStart));
  EXPECT_TRUE(std::is_sorted(t.memory_ops.begin(), t.memory_ops.end(), byStart));
}

TEST_F(NvprofImporterTest, AccountsForEveryRowRead) {
  const trace::Trace t = import();
  const trace::ImportStats& stats = t.import_stats;
  // 3 kernels + 5 runtime + 1 driver + memcpy + memset + 2 syncs + 5 marker rows.
  EXPECT_EQ(stats.events_read, 18u);
  // A range is one event of two rows: its start row is read and imported with its end.
  EXPECT_EQ(stats.events_imported, 18u - 2u);
  EXPECT_TRUE(stats.not_understood.empty());
  EXPECT_TRUE(stats.skipped.empty());
  EXPECT_EQ(t.eventCount(), stats.events_imported);
}

TEST_F(NvprofImporterTest, ANameIdMissingFromStringTableIsCountedWithItsPlaceAndTheRecordKept) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SET name = 404 WHERE _id_ = 2;"
        "UPDATE CUPTI_ACTIVITY_KIND_DEVICE SET name = 405;"
        "UPDATE CUPTI_ACTIVITY_KIND_MARKER SET name = 406 WHERE _id_ = 5;");
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.str(t.kernels[1].name), "");
  EXPECT_EQ(t.kernels[1].correlation_id, 13u);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.str(t.devices[0].name), "");
  EXPECT_EQ(t.devices[0].sm_count, 80);
  EXPECT_EQ(t.ranges.size(), 3u);
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' column 'name' ids missing from StringTable (left unnamed)",
                1, "table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' row 2");
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_DEVICE' column 'name' ids missing from StringTable (left unnamed)", 1,
                "table 'CUPTI_ACTIVITY_KIND_DEVICE' row 1");
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_MARKER' column 'name' ids missing from StringTable (left unnamed)", 1,
                "table 'CUPTI_ACTIVITY_KIND_MARKER' row 5");
}

// Each activity table: a record that ends before it starts cannot be placed in time.
TEST_F(NvprofImporterTest, ARecordEndingBeforeItStartsIsCountedWithItsRowAndLeftOut) {
  const trace::Trace full = import();
  struct Case {
    const char* table;
    std::size_t kernels, launches, memory_ops, synchronizations;
  };
  for (const Case& c : {Case{"CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", 2, 6, 2, 2},
                        Case{"CUPTI_ACTIVITY_KIND_RUNTIME", 3, 5, 2, 2},
                        Case{"CUPTI_ACTIVITY_KIND_DRIVER", 3, 5, 2, 2},
                        Case{"CUPTI_ACTIVITY_KIND_MEMCPY", 3, 6, 1, 2},
                        Case{"CUPTI_ACTIVITY_KIND_MEMSET", 3, 6, 1, 2},
                        Case{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 3, 6, 2, 1}}) {
    SCOPED_TRACE(c.table);
    ASSERT_NO_FATAL_FAILURE(create(kProfileSql));
    alter(std::string("UPDATE ") + c.table + " SET end = start - 1 WHERE _id_ = 1");
    const trace::Trace t = import();
    EXPECT_EQ(t.kernels.size(), c.kernels);
    EXPECT_EQ(t.launches.size(), c.launches);
    EXPECT_EQ(t.memory_ops.size(), c.memory_ops);
    EXPECT_EQ(t.synchronizations.size(), c.synchronizations);
    expectCounted(t, std::string("table '") + c.table + "' records that end before they start (left out)", 1,
                  std::string("table '") + c.table + "' row 1");
    EXPECT_EQ(t.ranges.size(), full.ranges.size());
  }
}

TEST_F(NvprofImporterTest, AMarkerEndingBeforeItStartsIsCountedWithItsRowAndLeftOut) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET timestamp = 1583975499355054000 WHERE _id_ = 3");  // before row 2
  const trace::Trace t = import();
  EXPECT_EQ(rangeNamed(t, "linear, seq = 120"), nullptr);
  EXPECT_EQ(t.ranges.size(), 2u);
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_MARKER' records that end before they start (left out)", 1,
                "table 'CUPTI_ACTIVITY_KIND_MARKER' row 3");
  for (const trace::Range& r : t.ranges) EXPECT_LE(r.start_ns, r.end_ns);
}

TEST_F(NvprofImporterTest, AMarkerEndWithoutItsStartIsCountedWithItsRow) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET id = 77 WHERE _id_ = 3");
  const trace::Trace t = import();
  expectCounted(t, "marker ends without a start", 1, "table 'CUPTI_ACTIVITY_KIND_MARKER' row 3");
  // Its start (id 2) is then a range without an end.
  EXPECT_NE(rangeNamed(t, "linear, seq = 120"), nullptr);
}

TEST_F(NvprofImporterTest, AMarkerOfUnknownFlagsIsCountedWithItsRow) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET flags = 8 WHERE _id_ = 5");
  const trace::Trace t = import();
  EXPECT_EQ(rangeNamed(t, "checkpoint"), nullptr);
  expectCounted(t, "markers with flags 8", 1, "table 'CUPTI_ACTIVITY_KIND_MARKER' row 5");
}

// Recording stopped inside the range: it is kept, up to the last record of the file (the GPU's
// and the host's alike), so that the work launched in it stays inside it.
TEST_F(NvprofImporterTest, AMarkerWithoutAnEndIsKeptUntilTheEndOfTheTraceAndCountedWithItsStartRow) {
  alter("DELETE FROM CUPTI_ACTIVITY_KIND_MARKER WHERE _id_ = 4");  // the end of id 1
  const trace::Trace t = import();
  const trace::Range* call = rangeNamed(t, kPyProfText);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->start_ns, kT0 + 50'000);
  EXPECT_EQ(call->end_ns, kLastEndNs);
  expectCounted(t, "ranges without an end (kept, closed at the end of the trace)", 1,
                "table 'CUPTI_ACTIVITY_KIND_MARKER' row 1");
}

TEST_F(NvprofImporterTest, SharedMemoryThatIsNoSizeIsCountedAndTheKernelKept) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SET staticSharedMemory = -1 WHERE _id_ = 1");
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.kernels[0].shared_memory_bytes, 0u);
  expectCounted(t,
                "table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' shared memory sizes that are not a size (read as 0, "
                "the kernel kept)",
                1, "table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' row 1");
}

TEST_F(NvprofImporterTest, ACopyOrMemsetSizeThatIsNoSizeIsCountedAndTheRecordKept) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -4096; UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET bytes = -1;");
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  EXPECT_EQ(t.memory_ops[0].bytes, 0u) << "not 2^64 - 4096 bytes";
  EXPECT_EQ(t.memory_ops[1].bytes, 0u);
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_MEMCPY' negative byte counts (read as 0, the record kept)", 1,
                "table 'CUPTI_ACTIVITY_KIND_MEMCPY' row 1");
  expectCounted(t, "table 'CUPTI_ACTIVITY_KIND_MEMSET' negative byte counts (read as 0, the record kept)", 1,
                "table 'CUPTI_ACTIVITY_KIND_MEMSET' row 1");
}

TEST_F(NvprofImporterTest, AKernelTableWithoutItsTimesIsAnErrorNamingFileTableAndColumn) {
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL DROP COLUMN start");
  const std::string message = importError();
  EXPECT_NE(message.find(path_), std::string::npos) << message;
  EXPECT_NE(message.find("table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' has no column 'start'"), std::string::npos)
      << message;
}

TEST_F(NvprofImporterTest, ADatabaseWithoutStringTableIsAnErrorNamingTheFile) {
  alter("DROP TABLE StringTable");
  const std::string message = importError();
  EXPECT_NE(message.find(path_), std::string::npos) << message;
  EXPECT_NE(message.find("table 'StringTable' is missing"), std::string::npos) << message;
}

TEST(NvprofRecognitionTest, AnotherSqliteDatabaseIsRefusedNamingTheFile) {
  test::ScratchDir dir;
  const std::string path = dir.file("measurements.sqlite");
  {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    // A string table alone is not a profile: nvprof always writes a kernel table.
    ASSERT_TRUE(db->execute("CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);"
                            "CREATE TABLE samples (t INT, watts REAL);"));
    EXPECT_FALSE(isNvprofDatabase(*db));
  }
  const auto imported = importTrace(path);
  ASSERT_FALSE(imported.ok());
  const std::string& message = imported.error().message;
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("unknown schema"), std::string::npos) << message;
}

}  // namespace
}  // namespace ampscope::analyzer::import
