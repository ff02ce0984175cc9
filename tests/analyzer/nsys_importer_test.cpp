#include "analyzer/import/nsight/nsys_importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "../test_support.h"
#include "../trace_equality.h"
#include "analyzer/core/gemm_shapes.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/summary/trace_summary.h"
#include "sqlite_importer_fixture.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {
namespace {

// Thread ids packed into the fixture's globalTid values (see tests/data/nsys_small.sql).
constexpr std::int64_t kPid = 24817;
constexpr std::int64_t kMainTid = 24817;
constexpr std::int64_t kLoaderTid = 24903;
constexpr std::int64_t kLastTimestampNs = 1'001'100'000;  // the end of the NCCL kernel

// Each test gets its own database built from the fixture's SQL, so it may alter it freely.
class NsysImporterTest : public test::SqliteImporterTest<importNsightSystems> {
 protected:
  void SetUp() override {
    const std::string sql = test::readFile(test::testData("nsys_small.sql"));
    ASSERT_FALSE(sql.empty()) << "cannot read " << test::testData("nsys_small.sql");
    ASSERT_NO_FATAL_FAILURE(create(sql));
  }
};

TEST_F(NsysImporterTest, RecognisesExportByStringIdsAndActivityTables) {
  EXPECT_TRUE(isNsightSystemsDatabase(*db_));
}

TEST_F(NsysImporterTest, DoesNotRecogniseDatabaseWithoutStringIds) {
  // An nvprof profile has CUPTI_ACTIVITY_KIND_KERNEL too, but a StringTable instead of StringIds.
  alter("DROP TABLE StringIds; CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);");
  EXPECT_FALSE(isNsightSystemsDatabase(*db_));
}

// nsys makes a table only for what it recorded: a run traced without CUDA or NVTX (OS runtime,
// sampling, scheduling) has none of the tables ampscope reads, yet is an Nsight Systems export,
// known by its session tables. It reads as a trace of nothing that says why, not as a refusal.
TEST_F(NsysImporterTest, AnExportWithoutCudaOrNvtxTablesIsReadAsNothingAndSaysWhy) {
  ASSERT_NO_FATAL_FAILURE(create(
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'pthread_mutex_lock');"
      "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
      "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');"
      "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
      "globalTid INTEGER, nameId INTEGER NOT NULL);"
      "INSERT INTO OSRT_API VALUES (10, 20, 27, 281891336904945, 1);"));
  EXPECT_TRUE(isNsightSystemsDatabase(*db_));
  const trace::Trace t = import();
  EXPECT_EQ(t.eventCount(), 0u);
  EXPECT_EQ(t.format, trace::TraceFormat::kNsightSystems);
  ASSERT_EQ(t.import_stats.skipped.size(), 1u);
  EXPECT_NE(t.import_stats.skipped.begin()->first.find("without CUDA or NVTX tables"), std::string::npos);
  // Without the session tables either, StringIds alone says nothing of Nsight Systems.
  alter("DROP TABLE TARGET_INFO_SESSION_START_TIME");
  EXPECT_FALSE(isNsightSystemsDatabase(*db_));
}

TEST_F(NsysImporterTest, ReadsKernelsWithDemangledNames) {
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 6u);
  EXPECT_EQ(t.str(t.kernels[0].name), "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
  EXPECT_EQ(t.str(t.kernels[1].name),
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
            "at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<c10::Half>, "
            "at::detail::Array<char *, 3>)");
  EXPECT_EQ(t.str(t.kernels[4].name),
            "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)");

  const trace::Kernel& gemm = t.kernels[0];
  EXPECT_EQ(gemm.start_ns, 1'000'075'000);
  EXPECT_EQ(gemm.end_ns, 1'000'210'000);
  EXPECT_EQ(gemm.device, 0u);
  EXPECT_EQ(gemm.stream, 7u);
  EXPECT_EQ(gemm.correlation_id, 103u);
  EXPECT_EQ(gemm.grid, (std::array<std::uint32_t, 3>{8, 16, 1}));
  EXPECT_EQ(gemm.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(gemm.registers_per_thread, 232u);
  EXPECT_EQ(gemm.shared_memory_bytes, 81920u);
  EXPECT_EQ(t.kernels[2].shared_memory_bytes, 4224u);  // static only
  EXPECT_EQ(t.kernels[4].device, 1u);
  EXPECT_EQ(t.kernels[5].stream, 13u);
}

TEST_F(NsysImporterTest, FallsBackToShortNameWhenDemangledNameIsAbsent) {
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName");
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), 6u);
  EXPECT_EQ(t.str(t.kernels[1].name), "vectorized_elementwise_kernel");
  EXPECT_EQ(t.str(t.kernels[5].name), "cunn_SoftMaxForward");
}

TEST_F(NsysImporterTest, ReadsDevicesWithComputeCapability) {
  const trace::Trace t = import();
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[0].id, 0u);
  EXPECT_EQ(t.str(t.devices[0].name), "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(t.devices[0].compute_major, 8);
  EXPECT_EQ(t.devices[0].compute_minor, 0);
  EXPECT_EQ(t.devices[0].sm_count, 108);
  EXPECT_EQ(t.devices[0].total_memory_bytes, 85899345920u);
  // clockRate is in Hz and memoryBandwidth in bytes per second.
  EXPECT_EQ(t.devices[0].sm_clock_khz, 1'410'000);
  EXPECT_EQ(t.devices[0].memory_bandwidth_bytes_per_s, 2'039'000'000'000u);
  EXPECT_EQ(t.devices[1].id, 1u);
  EXPECT_EQ(t.str(t.devices[1].name), "NVIDIA RTX A6000");
  EXPECT_EQ(t.devices[1].compute_major, 8);
  EXPECT_EQ(t.devices[1].compute_minor, 6);
  EXPECT_EQ(t.devices[1].sm_count, 84);
}

TEST_F(NsysImporterTest, DecodesLaunchThreadsFromGlobalTid) {
  const trace::Trace t = import();
  ASSERT_EQ(t.launches.size(), 8u);  // the backtrace record is not a call
  int runtime_launches = 0;
  for (const trace::LaunchCall& l : t.launches) {
    ASSERT_NE(l.thread, trace::kNone);
    EXPECT_EQ(t.threads[static_cast<std::size_t>(l.thread)].pid, kPid);
    EXPECT_EQ(t.threads[static_cast<std::size_t>(l.thread)].tid, kMainTid);
    if (t.str(l.name) == "cudaLaunchKernel") {
      ++runtime_launches;
      EXPECT_EQ(l.api, trace::ApiKind::kRuntime);
    }
  }
  EXPECT_EQ(runtime_launches, 4);
  EXPECT_EQ(t.str(t.launches[0].name), "cudaMemcpyAsync");  // "_v3020" dropped
  EXPECT_EQ(t.launches[0].correlation_id, 101u);
  EXPECT_EQ(t.str(t.launches[6].name), "cuLaunchKernel");
  EXPECT_EQ(t.launches[6].api, trace::ApiKind::kDriver);
  EXPECT_EQ(t.launches[6].correlation_id, 107u);
}

TEST_F(NsysImporterTest, NamesThreadsThatHaveEvents) {
  const trace::Trace t = import();
  ASSERT_EQ(t.threads.size(), 2u);  // "CUPTI worker thread" has no events, so no thread
  for (const trace::Thread& thread : t.threads) {
    EXPECT_EQ(thread.pid, kPid);
    EXPECT_EQ(t.str(thread.name), thread.tid == kMainTid ? "python3" : "pt_data_worker");
  }
}

TEST_F(NsysImporterTest, LeavesKernelWithoutLaunchUnmatched) {
  const trace::Trace t = import();
  for (const trace::Kernel& k : t.kernels) {
    const auto same_id = [&](const trace::LaunchCall& l) { return l.correlation_id == k.correlation_id; };
    const auto launches = std::count_if(t.launches.begin(), t.launches.end(), same_id);
    EXPECT_EQ(launches, k.correlation_id == 300 ? 0 : 1) << t.str(k.name);
  }
}

TEST_F(NsysImporterTest, ReadsNvtxRangesFromInlineTextAndTextId) {
  const trace::Trace t = import();
  const trace::Range* step = rangeNamed(t, "train_step");  // inline text
  const trace::Range* forward = rangeNamed(t, "forward");  // registered string via textId
  const trace::Range* loss = rangeNamed(t, "loss");
  ASSERT_TRUE(step && forward && loss);
  EXPECT_EQ(step->start_ns, 1'000'000'000);
  EXPECT_EQ(step->end_ns, 1'000'900'000);
  EXPECT_EQ(forward->start_ns, 1'000'050'000);
  EXPECT_EQ(forward->end_ns, 1'000'600'000);
  EXPECT_EQ(forward->kind, trace::RangeKind::kAnnotation);
  EXPECT_EQ(t.threads[static_cast<std::size_t>(forward->thread)].tid, kMainTid);
  EXPECT_EQ(forward->thread, step->thread);
  EXPECT_TRUE(encloses(*step, forward->start_ns, forward->end_ns));
  EXPECT_TRUE(encloses(*step, loss->start_ns, loss->end_ns));
  for (const trace::LaunchCall& l : t.launches) {
    if (t.str(l.name) == "cudaLaunchKernel") {
      EXPECT_TRUE(encloses(*forward, l.start_ns, l.end_ns));
    } else if (t.str(l.name) == "cuLaunchKernel") {
      EXPECT_TRUE(encloses(*loss, l.start_ns, l.end_ns));
    }
  }
}

TEST_F(NsysImporterTest, ReadsNvtxDomainsAndCategoriesSoTheTrainersRangesAreKnown) {
  // An ampscope trainer run profiled by Nsight Systems: its layer ranges live in domain "ampscope".
  alter("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, eventId) VALUES "
        "(999000001, NULL, 75, 'ampscope', 281891336904945, 2, 100), "
        "(1000060000, 1000500000, 59, 'fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] "
        "dtype=float16 gemm=64,100,784', 281891336904945, 2, 101);");
  trace::Trace t = import();
  const trace::Range* fetch = rangeNamed(t, "data_loader_fetch");
  ASSERT_TRUE(fetch);
  EXPECT_EQ(fetch->category, 1u);
  EXPECT_EQ(t.str(fetch->domain), "");  // the default domain
  const auto layer = std::find_if(t.ranges.begin(), t.ranges.end(),
                                  [&](const trace::Range& r) { return t.str(r.domain) == "ampscope"; });
  ASSERT_NE(layer, t.ranges.end());
  // The importer read the trainer's range text, as every importer does.
  EXPECT_EQ(t.str(layer->layer), "fc1");
  EXPECT_EQ(t.str(layer->op), "linear");
  EXPECT_EQ(layer->phase, trace::Phase::kForward);
  EXPECT_EQ(t.str(layer->shapes), "[[64,784],[100,784],[100]]");
}

TEST_F(NsysImporterTest, KeepsStartEndRangesAndMarks) {
  const trace::Trace t = import();
  const trace::Range* fetch = rangeNamed(t, "data_loader_fetch");
  const trace::Range* mark = rangeNamed(t, "step 0");
  ASSERT_TRUE(fetch && mark);
  EXPECT_EQ(fetch->start_ns, 999'200'000);
  EXPECT_EQ(fetch->end_ns, 1'000'004'000);
  EXPECT_EQ(t.threads[static_cast<std::size_t>(fetch->thread)].tid, kLoaderTid);
  EXPECT_EQ(mark->start_ns, 1'000'000'500);
  EXPECT_EQ(mark->end_ns, mark->start_ns);
}

TEST_F(NsysImporterTest, ClosesRangeWithoutEndAtEndOfTraceAndCountsIt) {
  const trace::Trace t = import();
  const trace::Range* optimizer = rangeNamed(t, "optimizer.step");
  ASSERT_TRUE(optimizer);
  EXPECT_EQ(optimizer->start_ns, 1'000'950'000);
  EXPECT_EQ(optimizer->end_ns, kLastTimestampNs);
  const auto& not_understood = t.import_stats.not_understood;
  EXPECT_EQ(not_understood.at("ranges without an end (kept, closed at the end of the trace)"), 1u);
}

TEST_F(NsysImporterTest, ReadsPageableHostToDeviceCopyMemsetAndSync) {
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  const trace::MemoryOp& copy = t.memory_ops[0];
  EXPECT_EQ(copy.kind, trace::MemoryOpKind::kMemcpy);
  EXPECT_EQ(copy.direction, trace::CopyDirection::kHostToDevice);
  EXPECT_EQ(copy.src_kind, trace::MemoryKind::kPageable);  // Nsight's 0, not CUPTI's 1
  EXPECT_EQ(copy.dst_kind, trace::MemoryKind::kDevice);
  EXPECT_EQ(copy.bytes, 9633792u);
  EXPECT_EQ(copy.correlation_id, 101u);
  const trace::MemoryOp& set = t.memory_ops[1];
  EXPECT_EQ(set.kind, trace::MemoryOpKind::kMemset);
  EXPECT_EQ(set.dst_kind, trace::MemoryKind::kDevice);
  EXPECT_EQ(set.bytes, 4194304u);
  ASSERT_EQ(t.synchronizations.size(), 1u);
  EXPECT_EQ(t.synchronizations[0].kind, trace::SyncKind::kStreamSynchronize);
  EXPECT_EQ(t.synchronizations[0].stream, 7u);
  EXPECT_EQ(t.synchronizations[0].correlation_id, 108u);
}

TEST_F(NsysImporterTest, TreatsNullMemoryKindAsUnknownNotPageable) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = NULL");
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  EXPECT_EQ(t.memory_ops[0].src_kind, trace::MemoryKind::kUnknown);
}

TEST_F(NsysImporterTest, AccountsForEveryRowRead) {
  const trace::Trace t = import();
  const trace::ImportStats& stats = t.import_stats;
  // 6 kernels + 9 API rows + memcpy + memset + sync + 8 NVTX rows.
  EXPECT_EQ(stats.events_read, 26u);
  EXPECT_EQ(stats.events_imported, 22u);
  const std::map<std::string, std::uint64_t> skipped{
      {"CUDA API backtrace records", 1}, {"NVTX category names", 1}, {"NVTX domain creations", 1}};
  EXPECT_EQ(stats.skipped, skipped);
  EXPECT_EQ(stats.not_understood.size(), 1u);
  // Every row is imported, skipped or not understood; the range without an end is also kept.
  EXPECT_EQ(stats.events_read, stats.events_imported + 3 + 1);
  EXPECT_EQ(t.eventCount(), stats.events_imported + 1);
}

TEST_F(NsysImporterTest, ARecordEndingBeforeItStartsIsCountedWithItsRowAndLeftOut) {
  const std::size_t kernels = import().kernels.size();
  alter("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1 WHERE correlationId = 104");
  const trace::Trace t = import();
  EXPECT_EQ(t.kernels.size(), kernels - 1);
  const std::string reason = "table 'CUPTI_ACTIVITY_KIND_KERNEL' records that end before they start (left out)";
  EXPECT_EQ(t.import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason).rfind("table 'CUPTI_ACTIVITY_KIND_KERNEL' row ", 0), 0u)
      << t.import_stats.first_place.at(reason);
}

// Found by the nsys fuzz harness: static + dynamic shared memory of two huge values overflowed.
// Such a size is counted and read as 0; the kernel is kept.
TEST_F(NsysImporterTest, SharedMemoryThatIsNoSizeIsCountedAndTheKernelKept) {
  const std::size_t kernels = import().kernels.size();
  const std::string reason =
      "table 'CUPTI_ACTIVITY_KIND_KERNEL' shared memory sizes that are not a size (read as 0, the kernel kept)";
  for (const char* sizes : {"staticSharedMemory = 9000000000000000000, dynamicSharedMemory = 9000000000000000000",
                            "staticSharedMemory = -1, dynamicSharedMemory = 0"}) {
    SCOPED_TRACE(sizes);
    alter(std::string("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET ") + sizes + " WHERE correlationId = 104");
    const trace::Trace t = import();
    ASSERT_EQ(t.kernels.size(), kernels);
    EXPECT_EQ(t.import_stats.not_understood.at(reason), 1u);
    for (const trace::Kernel& k : t.kernels) {
      if (k.correlation_id == 104) {
        EXPECT_EQ(k.shared_memory_bytes, 0u);
      }
    }
  }
}

TEST_F(NsysImporterTest, ACopySizeThatIsNoSizeIsCountedAndTheCopyKept) {
  alter("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1");
  const trace::Trace t = import();
  ASSERT_EQ(t.memory_ops.size(), 2u);
  EXPECT_EQ(t.memory_ops[0].bytes, 0u) << "not 2^64 - 1 bytes";
  const std::string reason = "table 'CUPTI_ACTIVITY_KIND_MEMCPY' negative byte counts (read as 0, the record kept)";
  EXPECT_EQ(t.import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'CUPTI_ACTIVITY_KIND_MEMCPY' row 1");
}

// Trimmed exports (nsys-ai's test fixtures, Nsight Systems 2026.1) keep a kernel's times, ids and
// names but not its launch configuration.
TEST_F(NsysImporterTest, AKernelTableWithoutLaunchConfigurationIsRead) {
  const trace::Trace full = import();
  const std::size_t kernels = full.kernels.size();
  for (const char* column : {"registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "gridX", "blockZ"}) {
    alter(std::string("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN ") + column);
  }
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), kernels);
  for (const trace::Kernel& k : t.kernels) {
    EXPECT_EQ(k.registers_per_thread, 0u);
    EXPECT_EQ(k.grid[0], 0u);
  }
  EXPECT_EQ(t.import_stats.not_understood, full.import_stats.not_understood);
}

// The rows are read from the file's pages, which give up on a value SQLite would convert (a REAL
// where an integer is read, a BLOB where text is): that slice is then read by SQLite, and the
// trace is what SQLite's conversions make of it, as if no page had been read.
TEST_F(NsysImporterTest, ValuesThePagesDoNotReadAreReadBySqliteAsBefore) {
  const trace::Trace before = import();
  ASSERT_FALSE(before.ranges.empty());
  // A REAL that SQLite reads back as the integer it was; text as a BLOB of the same bytes.
  alter("UPDATE NVTX_EVENTS SET end = end + 0.25 WHERE end IS NOT NULL");
  alter("UPDATE NVTX_EVENTS SET text = CAST(text AS BLOB) WHERE text IS NOT NULL");
  alter("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 0.5");
  ASSERT_NO_FATAL_FAILURE(test::expectSameTrace(import(), before));
}

TEST_F(NsysImporterTest, CountsUnknownNvtxEventTypes) {
  alter("INSERT INTO NVTX_EVENTS (start, eventType, globalTid, eventId) VALUES (5, 99, 0, 100);");
  const trace::Trace t = import();
  EXPECT_EQ(t.import_stats.not_understood.at("NVTX events of type 99"), 1u);
}

TEST_F(NsysImporterTest, DecodesGlobalTidWithHardwareIdInTopBits) {
  // Hardware id 0xC1 sets the sign bit of the stored INTEGER.
  const std::uint64_t global_tid = (0xC1ull << 56) | (1ull << 48) | (4242ull << 24) | 77ull;
  auto insert = db_->prepare(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2000000000, 2000000100, 0, ?, 500, 3, 0, NULL)");
  ASSERT_TRUE(insert) << insert.error().message;
  insert->bind(1, static_cast<std::int64_t>(global_tid));
  ASSERT_TRUE(insert->run());
  const trace::Trace t = import();
  ASSERT_FALSE(t.launches.empty());
  const trace::LaunchCall& last = t.launches.back();
  EXPECT_EQ(last.correlation_id, 500u);
  EXPECT_EQ(t.threads[static_cast<std::size_t>(last.thread)].pid, 4242);
  EXPECT_EQ(t.threads[static_cast<std::size_t>(last.thread)].tid, 77);
}

TEST_F(NsysImporterTest, SetsFormatAndSortsEventsByTime) {
  const trace::Trace t = import();
  EXPECT_EQ(t.format, trace::TraceFormat::kNsightSystems);
  EXPECT_EQ(t.source_format, trace::TraceFormat::kNsightSystems);
  EXPECT_EQ(t.format_detail, "Nsight Systems SQLite export (schema 3.28.1)");
  const auto byStart = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  EXPECT_TRUE(std::is_sorted(t.kernels.begin(), t.kernels.end(), byStart));
  EXPECT_TRUE(std::is_sorted(t.launches.begin(), t.launches.end(), byStart));
  EXPECT_TRUE(std::is_sorted(t.ranges.begin(), t.ranges.end(), byStart));
}

TEST_F(NsysImporterTest, MissingEssentialColumnIsAnErrorNamingTableAndColumn) {
  // A kernel without its times cannot be placed; everything else about it is optional.
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN end");
  const std::string message = importError();
  EXPECT_NE(message.find(path_), std::string::npos) << message;
  EXPECT_NE(message.find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << message;
  EXPECT_NE(message.find("no column 'end'"), std::string::npos) << message;
}

TEST_F(NsysImporterTest, AKernelTableWithoutIdsReadsItsKernelsUnlinked) {
  const std::size_t kernels = import().kernels.size();
  alter("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN correlationId");
  const trace::Trace t = import();
  ASSERT_EQ(t.kernels.size(), kernels);
  for (const trace::Kernel& k : t.kernels) EXPECT_EQ(k.correlation_id, 0u);
}

TEST_F(NsysImporterTest, AnUnknownStringIdIsCountedWithTableRowAndColumnAndTheRangeKept) {
  const std::size_t ranges = import().ranges.size();
  alter("UPDATE NVTX_EVENTS SET textId = 999, text = NULL WHERE eventId = 6");
  const trace::Trace t = import();
  EXPECT_EQ(t.ranges.size(), ranges);
  const std::string reason = "table 'NVTX_EVENTS' column 'textId' ids missing from StringIds (left unnamed)";
  EXPECT_EQ(t.import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'NVTX_EVENTS' row 6");
}

// PyProf's markers as an Nsight Systems export of a PyProf-patched PyTorch run holds them: the
// call stack (with funcStack), then the operator call with its argument shapes, around a launch.
TEST_F(NsysImporterTest, PyProfMarkersInsideAnExportGiveOperatorShapesAndLayers) {
  alter("DELETE FROM NVTX_EVENTS WHERE eventId IN (6, 7);");
  alter(R"sql(INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, eventId) VALUES
    (1000055000, 1000075000, 59, '{''traceMarker'': [''net.py:40''], ''funcStack'': ''/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear''}', 281891336904945, 0, 20),
    (1000056000, 1000074000, 59, '{''mod'': ''torch.nn.functional'', ''op'': ''linear'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (64, 784), ''dtype'': ''float16''}, {''name'': '''', ''type'': ''tensor'', ''shape'': (100, 784), ''dtype'': ''float16''}]}', 281891336904945, 0, 21),
    (1000115000, 1000130000, 59, '{''traceMarker'': [''net.py:31''], ''funcStack'': ''/dummy_network::forward/Conv2d::_call_impl/Conv2d::forward/Conv2d::_conv_forward/conv2d''}', 281891336904945, 0, 22),
    (1000116000, 1000129000, 59, '{''mod'': ''torch.nn.functional'', ''op'': ''conv2d'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (32, 3, 224, 224), ''dtype'': ''float16''}]}', 281891336904945, 0, 23);)sql");
  trace::Trace t = import();
  correlate(t);
  const auto op_of = [&](std::uint64_t correlation) -> const trace::Range* {
    for (const trace::Kernel& k : t.kernels) {
      if (k.correlation_id == correlation && k.op_range != trace::kNone) return &t.ranges[static_cast<std::size_t>(k.op_range)];
    }
    return nullptr;
  };
  const trace::Range* linear = op_of(103);
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->text_form, trace::RangeTextForm::kPyProfOperator);
  EXPECT_EQ(t.str(linear->op), "torch.nn.functional.linear");
  EXPECT_EQ(t.str(linear->shapes), "[[64,784],[100,784]]");
  EXPECT_EQ(t.str(linear->dtypes), "[\"float16\",\"float16\"]");
  EXPECT_EQ(t.str(linear->layer), "dummy_network/Linear[4]");  // from the call stack that encloses it
  ASSERT_NE(linear->parent, trace::kNone);
  const trace::Range& stack = t.ranges[static_cast<std::size_t>(linear->parent)];
  EXPECT_EQ(t.str(stack.module_path), "/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear");
  const trace::Range* conv = op_of(106);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(t.str(conv->op), "torch.nn.functional.conv2d");
  EXPECT_EQ(t.str(conv->layer), "dummy_network/Conv2d");
}

// A CNN with two Conv2d modules, as DLProf's PyProf patch marks it: each call of a module holds its
// call stack (the funcStack tells the second call site apart), the module's marker and the op.
// Each instance is a layer of its own, as DLProf's report lists them (CONV2D_1, CONV2D_2).
TEST_F(NsysImporterTest, TwoModulesOfOneClassAreTwoLayers) {
  alter("DELETE FROM NVTX_EVENTS WHERE eventId IN (6, 7);");
  alter(R"sql(INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, eventId) VALUES
    (1000055000, 1000075000, 59, '{''traceMarker'': [''net.py:30''], ''funcStack'': ''/Net::forward/Conv2d::_call_impl/Conv2d::forward/Conv2d::_conv_forward/conv2d''}', 281891336904945, 0, 20),
    (1000055500, 1000074500, 59, '{''mod'': ''Conv2d'', ''strRepr'': ''3, 16, kernel_size=(3, 3)''}', 281891336904945, 0, 21),
    (1000056000, 1000074000, 59, '{''mod'': ''torch.nn.functional'', ''op'': ''conv2d'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (32, 3, 32, 32), ''dtype'': ''float32''}]}', 281891336904945, 0, 22),
    (1000115000, 1000130000, 59, '{''traceMarker'': [''net.py:31''], ''funcStack'': ''/Net::forward/Conv2d::_call_impl[2]/Conv2d::forward/Conv2d::_conv_forward/conv2d''}', 281891336904945, 0, 23),
    (1000115500, 1000129500, 59, '{''mod'': ''Conv2d'', ''strRepr'': ''16, 32, kernel_size=(3, 3)''}', 281891336904945, 0, 24),
    (1000116000, 1000129000, 59, '{''mod'': ''torch.nn.functional'', ''op'': ''conv2d'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (32, 16, 30, 30), ''dtype'': ''float32''}]}', 281891336904945, 0, 25);)sql");
  trace::Trace t = import();
  const CorrelationCounts counts = correlate(t);
  const TraceSummary summary = summarizeTrace(t, counts, {});
  std::vector<std::string> layers;
  for (const GroupTime& layer : summary.layers) layers.push_back(layer.name);
  std::sort(layers.begin(), layers.end());
  EXPECT_EQ(layers, (std::vector<std::string>{"Net/Conv2d", "Net/Conv2d[2]"}));
}

// PyTorch's emit_nvtx text in an export: every call of aten::mm is the one operator aten::mm.
TEST_F(NsysImporterTest, EmitNvtxRangesOfOneOpAreOneEligibleOperator) {
  alter("DELETE FROM NVTX_EVENTS WHERE eventId IN (6, 7);");
  alter(R"sql(INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, eventId) VALUES
    (1000075000, 1000095000, 59, 'aten::mm, op_id = 318133', 281891336904945, 0, 20),
    (1000095000, 1000110000, 59, 'aten::mm, op_id = 318141, sizes = [[64, 784], [784, 100]], input_op_ids = [(318139,0)]', 281891336904945, 0, 21);)sql");
  trace::Trace t = import();
  const CorrelationCounts counts = correlate(t);
  std::map<std::string, int> operators;
  for (const trace::Kernel& k : t.kernels) {
    if (k.op_range == trace::kNone) continue;
    const trace::Range& op = t.ranges[static_cast<std::size_t>(k.op_range)];
    if (op.text_form == trace::RangeTextForm::kTorchNvtx) ++operators[std::string(t.str(op.op))];
  }
  EXPECT_EQ(operators, (std::map<std::string, int>{{"aten::mm", 2}}));
  EXPECT_GE(counts.kernels_attributed_to_op, 2u);
  const trace::Range* shaped =
      rangeNamed(t, "aten::mm, op_id = 318141, sizes = [[64, 784], [784, 100]], input_op_ids = [(318139,0)]");
  ASSERT_NE(shaped, nullptr);
  EXPECT_EQ(t.str(shaped->shapes), "[[64,784],[784,100]]");
  EXPECT_EQ(shaped->op_id, 318141);
  EXPECT_TRUE(isTensorCoreEligibleOp(t.str(shaped->op)));
}

}  // namespace
}  // namespace ampscope::analyzer::import
