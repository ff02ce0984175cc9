#include <algorithm>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "../test_support.h"
#include "../trace_equality.h"
#include "trace/db/kernel_rows.h"
#include "trace/db/profile_reader.h"
#include "trace/db/profile_schema.h"
#include "trace/db/profile_writer.h"

namespace ampscope::trace::db {
namespace {

// A trace that uses every table and field, with values that do not fit 32 bits where they can.
Trace makeSampleTrace() {
  Trace trace;
  trace.source_format = TraceFormat::kKineto;
  trace.format_detail = "synthetic, with a comma, and \"quotes\"";
  trace.devices.push_back({0, trace.strings.intern("NVIDIA H100 80GB HBM3"), 9, 0, 132, 85899345920ULL});
  trace.devices.back().sm_clock_khz = 1'980'000;
  trace.devices.back().memory_bandwidth_bytes_per_s = 3'352'320'000'000ULL;
  Device host{1, trace.strings.intern("CPU: AMD EPYC (2 threads)")};
  host.kind = DeviceKind::kCpu;
  trace.devices.push_back(host);
  const Index thread = trace.threadIndex(4242, 1234567890123);
  trace.threads[static_cast<std::size_t>(thread)].name = trace.strings.intern("main");
  LaunchCall launch;
  launch.start_ns = 1752831015707178532;
  launch.end_ns = launch.start_ns + 4500;
  launch.correlation_id = 9'000'000'001ULL;
  launch.name = trace.strings.intern("cudaLaunchKernel");
  launch.thread = thread;
  launch.cbid = 211;
  launch.api = ApiKind::kDriver;
  trace.launches.push_back(launch);
  Kernel kernel;
  kernel.start_ns = launch.end_ns + 100;
  kernel.end_ns = kernel.start_ns + 123456;
  kernel.correlation_id = launch.correlation_id;
  kernel.name = trace.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  kernel.device = 0;
  kernel.stream = 7;
  kernel.grid = {132, 2, 1};
  kernel.block = {384, 1, 1};
  kernel.registers_per_thread = 168;
  kernel.shared_memory_bytes = 232448;
  trace.kernels.push_back(kernel);
  MemoryOp copy;
  copy.start_ns = 5;
  copy.end_ns = 10;
  copy.correlation_id = 77;
  copy.bytes = 38535168;
  copy.kind = MemoryOpKind::kMemcpy;
  copy.direction = CopyDirection::kHostToDevice;
  copy.src_kind = MemoryKind::kPageable;
  copy.dst_kind = MemoryKind::kDevice;
  trace.memory_ops.push_back(copy);
  trace.synchronizations.push_back({20, 30, 78, 0, 7, SyncKind::kStreamSynchronize});
  Range range;
  range.start_ns = launch.start_ns - 1000;
  range.end_ns = kernel.end_ns;
  range.name = trace.strings.intern("aten::linear");
  range.thread = thread;
  range.kind = RangeKind::kOperator;
  range.phase = Phase::kForward;
  range.op = trace.strings.intern("linear");
  range.shapes = trace.strings.intern("[[35,20,200],[33278,200],[33278]]");
  range.dtypes = trace.strings.intern("[\"float\",\"float\",\"float\"]");
  range.layer = trace.strings.intern("decoder");
  range.sequence_number = 120;
  range.fwd_thread_tid = 0;
  range.text_form = RangeTextForm::kFrameworkOperator;
  range.module_path = trace.strings.intern("TOP(LM)::forward.decoder(Linear)::forward");
  range.op_id = 5'000'000'000;
  trace.ranges.push_back(range);
  Range mark;
  mark.start_ns = mark.end_ns = range.start_ns + 10;
  mark.name = trace.strings.intern("checkpoint");
  mark.thread = thread;
  mark.kind = RangeKind::kAnnotation;
  mark.domain = trace.strings.intern("ampscope");
  mark.category = 4000000000u;
  mark.payload = trace.strings.intern("-1.5");
  trace.ranges.push_back(mark);
  Range conv;
  conv.start_ns = range.start_ns + 20;
  conv.end_ns = conv.start_ns + 30;
  conv.name = trace.strings.intern("aten::conv2d");
  conv.thread = thread;
  conv.op = conv.name;
  conv.shapes = trace.strings.intern("[[8,3,224,224],[64,3,7,7],[64],[],[],[],[]]");
  conv.arguments = trace.strings.intern(R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  conv.strides = trace.strings.intern("[[150528,50176,224,1],[147,49,7,1],[1]]");
  trace.ranges.push_back(conv);
  // An allocation on the GPU with both totals and an address above 2^63; a free on the host with
  // none of what a form may lack (no address, totals, thread or process).
  MemoryEvent allocation;
  allocation.time_ns = launch.start_ns + 5;
  allocation.bytes = 6'442'450'944;  // 6 GiB
  allocation.address = 0xffff'8000'0000'1000ULL;
  allocation.total_allocated = 70'000'000'000;
  allocation.total_reserved = 75'000'000'000;
  allocation.device_kind = DeviceKind::kGpu;
  allocation.device = 3;
  allocation.thread = thread;
  allocation.pid = 4242;
  trace.memory_events.push_back(allocation);
  MemoryEvent free;
  free.time_ns = allocation.time_ns + 10;
  free.bytes = -512;
  free.device_kind = DeviceKind::kCpu;
  trace.memory_events.push_back(free);
  // A tensor-pipe sample and a range profiler's range with measured times and one without (a
  // range matched to its launch by order), values of several magnitudes.
  const StringId tensor_active = trace.strings.intern("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
  trace.metric_samples.push_back({kernel.start_ns, kernel.start_ns + 100'000, 0, tensor_active, 87.25});
  trace.metric_samples.push_back({kernel.start_ns + 100'000, kernel.start_ns + 200'000, 1,
                                  trace.strings.intern("sm__cycles_active.avg.pct_of_peak_sustained_elapsed"), 0.0});
  KernelMetrics measured;
  measured.start_ns = kernel.start_ns;
  measured.end_ns = kernel.end_ns;
  measured.kernel_name = kernel.name;
  measured.correlation_id = kernel.correlation_id;
  measured.device = 0;
  measured.pid = 4242;
  measured.values = {{tensor_active, 91.5}, {trace.strings.intern("sm__inst_executed_pipe_tensor.sum"), 6.5e12}};
  trace.kernel_metrics.push_back(measured);
  KernelMetrics by_order;
  by_order.times_measured = false;
  by_order.values = {{tensor_active, 0.0}};
  trace.kernel_metrics.push_back(by_order);
  trace.gradient_bins.push_back({3, 1000, trace.strings.intern("fc1.weight"), -27, 5000000000ULL});
  trace.counters.push_back({1000, trace.strings.intern("loss_scale"), 3, 65536.0});
  trace.import_stats.events_read = 10;
  trace.import_stats.events_imported = 8;
  trace.import_stats.skipped["flow events"] = 2;
  trace.import_stats.not_understood["events of category 'x'"] = 1;
  trace.import_stats.first_place["events of category 'x'"] = "traceEvents element at byte offset 12";
  trace.import_stats.dropped_by_collector = 4;
  trace.import_stats.lost["NVTX ranges still open at exit"] = 2;
  return trace;
}

void execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << (message ? message : "");
}

TEST(ProfileDatabaseTest, WritesAndReadsBackEveryFieldIdentically) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file("run.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->format, TraceFormat::kAmpscope);
  test::expectSameTrace(original, *read);
}

// A rank's place in its job (Kineto's distributedInfo) survives --save-profile.
TEST(ProfileDatabaseTest, KeepsTheRankAndWorldSizeOfADistributedRun) {
  test::ScratchDir dir;
  Trace original = makeSampleTrace();
  original.distributed = {3, 8, "nccl"};
  const std::string path = dir.file("rank3.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  test::expectSameTrace(original, *read);
}

TEST(ProfileDatabaseTest, FinishedProfileIsOneSelfContainedFile) {
  test::ScratchDir dir;
  const std::string path = dir.file("run.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  // Written with a write-ahead log; once complete the log is folded back into the file.
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "delete");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(ProfileDatabaseTest, RefusesNewerMajorSchemaVersionNamingBothVersions) {
  test::ScratchDir dir;
  const std::string path = dir.file("future.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE ampscope_meta SET value = '" + std::to_string(kSchemaMajor + 1) +
                    ".3' WHERE key = 'schema_version'");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find(std::to_string(kSchemaMajor + 1) + ".3"), std::string::npos)
      << read.error().message;
  EXPECT_NE(read.error().message.find(std::to_string(kSchemaMajor) + ".x"), std::string::npos);
  EXPECT_NE(read.error().message.find(path), std::string::npos);
}

TEST(ProfileDatabaseTest, AcceptsNewerMinorVersionOfItsMajor) {
  test::ScratchDir dir;
  const std::string path = dir.file("minor.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE ampscope_meta SET value = '" + std::to_string(kSchemaMajor) +
                    ".99' WHERE key = 'schema_version'");
  EXPECT_TRUE(readProfile(path).ok());
}

TEST(ProfileDatabaseTest, ReadsSchemaOneZeroFilesWithTheDefaultsOfLaterColumns) {
  test::ScratchDir dir;
  const std::string path = dir.file("old.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  // What a 1.0 file looked like: none of the columns or tables that 1.1 added.
  execute(path,
          "ALTER TABLE devices DROP COLUMN kind; ALTER TABLE ranges DROP COLUMN domain_id; "
          "ALTER TABLE ranges DROP COLUMN category; ALTER TABLE ranges DROP COLUMN payload_id; "
          "DROP TABLE gradient_bins; DELETE FROM import_stats WHERE section = 'lost'; "
          "ALTER TABLE import_stats DROP COLUMN place; "
          "UPDATE ampscope_meta SET value = '1.0' WHERE key = 'schema_version'");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->devices.size(), 2u);
  EXPECT_EQ(read->devices[1].kind, DeviceKind::kGpu);
  ASSERT_EQ(read->ranges.size(), 3u);
  EXPECT_EQ(read->ranges[1].domain, StringTable::kEmpty);
  EXPECT_EQ(read->ranges[1].category, 0u);
  EXPECT_TRUE(read->gradient_bins.empty());
  EXPECT_TRUE(read->import_stats.lost.empty());
  EXPECT_EQ(read->import_stats.not_understood.size(), 1u);
  EXPECT_TRUE(read->import_stats.first_place.empty());  // 1.6 added the places
}

TEST(ProfileDatabaseTest, WritesTheRangesArgumentsAndItsSchemaVersion) {
  test::ScratchDir dir;
  const std::string path = dir.file("args.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const auto text = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    std::string value;
    if (sqlite3_step(stmt) == SQLITE_ROW) value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    return value;
  };
  EXPECT_EQ(text("SELECT value FROM ampscope_meta WHERE key = 'schema_version'"),
            std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor));
  EXPECT_EQ(kSchemaMinor, 8);
  // The column holds a string id, as shapes_id does.
  EXPECT_EQ(text("SELECT s.value FROM ranges r JOIN strings s ON s.id = r.arguments_id "
                 "JOIN strings n ON n.id = r.name_id WHERE n.value = 'aten::conv2d'"),
            R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  EXPECT_EQ(text("SELECT count(*) FROM ranges WHERE arguments_id = 0"), "2");
  EXPECT_EQ(text("SELECT s.value FROM ranges r JOIN strings s ON s.id = r.strides_id "
                 "JOIN strings n ON n.id = r.name_id WHERE n.value = 'aten::conv2d'"),
            "[[150528,50176,224,1],[147,49,7,1],[1]]");
  EXPECT_EQ(text("SELECT count(*) FROM ranges WHERE strides_id = 0"), "2");
  sqlite3_close(db);
}

// The sample trace written, then made an older version's file by `downgrade` (SQL), reads back
// as the sample with `forget` applied to each range (the fields that version did not record).
void expectOlderFileReads(const std::string& name, const char* downgrade, void (*forget)(Range&)) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file(name);
  ASSERT_TRUE(writeProfile(path, original).ok());
  execute(path, downgrade);
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->ranges.size(), original.ranges.size());
  bool some_forgotten = false;
  for (std::size_t i = 0; i < original.ranges.size(); ++i) {
    Range expected = original.ranges[i];
    forget(expected);
    some_forgotten = some_forgotten || !(expected == original.ranges[i]);
    EXPECT_TRUE(read->ranges[i] == expected) << "range #" << i;
  }
  EXPECT_TRUE(some_forgotten);  // the sample records what the older file lacks
}

TEST(ProfileDatabaseTest, ReadsSchemaOneFiveFilesWithoutTheDeviceClock) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file("one-five.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  execute(path,
          "ALTER TABLE devices DROP COLUMN sm_clock_khz; ALTER TABLE devices DROP COLUMN memory_bandwidth_bytes_per_s; "
          "UPDATE ampscope_meta SET value = '1.5' WHERE key = 'schema_version'");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->devices.size(), original.devices.size());
  EXPECT_EQ(read->devices[0].sm_count, 132);
  EXPECT_EQ(read->devices[0].sm_clock_khz, 0);  // not recorded before 1.6: unknown
  EXPECT_EQ(read->devices[0].memory_bandwidth_bytes_per_s, 0u);
}

TEST(ProfileDatabaseTest, MemoryEventsKeepTheirSignsAndWhatWasNotRecorded) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file("memory.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->memory_events.size(), 2u);
  EXPECT_EQ(read->memory_events[0].bytes, 6'442'450'944);
  EXPECT_EQ(read->memory_events[0].address, 0xffff'8000'0000'1000ULL);
  EXPECT_EQ(read->memory_events[0].device, 3u);
  EXPECT_EQ(read->memory_events[1].bytes, -512);
  EXPECT_EQ(read->memory_events[1].device_kind, DeviceKind::kCpu);
  EXPECT_EQ(read->memory_events[1].total_allocated, MemoryEvent::kNotRecorded);
  EXPECT_EQ(read->memory_events[1].total_reserved, MemoryEvent::kNotRecorded);
  EXPECT_EQ(read->memory_events[1].thread, kNone);
  EXPECT_EQ(read->memory_events[1].pid, kUnknownPid);
}

TEST(ProfileDatabaseTest, ReadsSchemaOneSixFilesWithoutMemoryEvents) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file("one-six.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  execute(path, "DROP TABLE memory_events; UPDATE ampscope_meta SET value = '1.6' WHERE key = 'schema_version'");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_TRUE(read->memory_events.empty());
  EXPECT_EQ(read->kernels.size(), original.kernels.size());
}

TEST(ProfileDatabaseTest, ReadsSchemaOneSevenFilesWithoutHardwareMetrics) {
  test::ScratchDir dir;
  const std::string path = dir.file("v17.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "DROP TABLE metric_samples; DROP TABLE kernel_metrics; DROP TABLE kernel_metric_values; "
                "UPDATE ampscope_meta SET value = '1.7' WHERE key = 'schema_version'");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_TRUE(read->metric_samples.empty());
  EXPECT_TRUE(read->kernel_metrics.empty());
  EXPECT_EQ(read->kernels.size(), 1u);
}

TEST(ProfileDatabaseTest, KernelMetricValuesOfEachRangeKeepTheirOrderAndRange) {
  test::ScratchDir dir;
  Trace original;
  const StringId a = original.strings.intern("sm__cycles_elapsed.avg");
  const StringId b = original.strings.intern("sm__pipe_tensor_cycles_active.avg");
  for (int i = 0; i < 3; ++i) {
    KernelMetrics range;
    range.times_measured = false;
    range.values = {{b, 10.0 * i}, {a, 100.0 + i}};
    original.kernel_metrics.push_back(range);
  }
  original.kernel_metrics[1].values.clear();  // a range whose values were not evaluated
  const std::string path = dir.file("ranges.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  test::expectSameTrace(original, *read);
}

TEST(ProfileDatabaseTest, MetricSampleOfAnUnknownMetricIsNamedWithItsRow) {
  test::ScratchDir dir;
  const std::string path = dir.file("bad_sample.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE metric_samples SET metric_id = 9999 WHERE device = 1");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'metric_samples' row 2: metric_id = 9999 is not a string id"),
            std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, MetricValueOfAMissingRangeIsNamedWithItsRow) {
  test::ScratchDir dir;
  const std::string path = dir.file("bad_value.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE kernel_metric_values SET range_id = 7 WHERE rowid = 3");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernel_metric_values' row 3: range_id = 7 is not a kernel_metrics id (0..1)"),
            std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, KernelMetricsOfAnUnknownKernelNameOrOutOfSequenceAreNamedWithTheirRow) {
  test::ScratchDir dir;
  const std::string path = dir.file("bad_range.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE kernel_metrics SET kernel_name_id = -3 WHERE id = 1");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernel_metrics' row 2: kernel_name_id = -3"), std::string::npos)
      << read.error().message;
  execute(path, "UPDATE kernel_metrics SET kernel_name_id = 0, id = 5 WHERE id = 1");
  read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernel_metrics' row 2: id 5 out of sequence"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, MemoryEventOfAnUnknownThreadIsNamedWithItsRow) {
  test::ScratchDir dir;
  const std::string path = dir.file("bad-thread.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE memory_events SET thread_id = 99 WHERE bytes < 0");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'memory_events' row 2: thread_id 99"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, ReadsSchemaOneFourFilesWithoutStrides) {
  expectOlderFileReads("one-four.sqlite",
                       "ALTER TABLE ranges DROP COLUMN strides_id; "
                       "UPDATE ampscope_meta SET value = '1.4' WHERE key = 'schema_version'",
                       [](Range& r) { r.strides = StringTable::kEmpty; });  // not recorded before 1.5
}

TEST(ProfileDatabaseTest, ReadsSchemaOneTwoFilesWithoutArgumentsKeepingTheirNormalisedFields) {
  expectOlderFileReads("one-two.sqlite",
                       "ALTER TABLE ranges DROP COLUMN strides_id; ALTER TABLE ranges DROP COLUMN arguments_id; "
                       "UPDATE ampscope_meta SET value = '1.2' WHERE key = 'schema_version'",
                       [](Range& r) {
                         r.arguments = StringTable::kEmpty;  // not recorded before 1.3
                         r.strides = StringTable::kEmpty;    // nor before 1.5
                       });
}

// Found by the profile fuzz harness: the reader sized its vectors by the rowid span, so sparse
// rowids (another writer's database, or a damaged one) asked for 2^62 rows, and a damaged B-tree
// returning more rows than its span wrote past the vector.
TEST(ProfileDatabaseTest, ReadsTablesWithSparseRowids) {
  test::ScratchDir dir;
  const Trace original = makeSampleTrace();
  const std::string path = dir.file("sparse-rowids.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  execute(path, "UPDATE memory_ops SET rowid = 4611686018427387904 WHERE rowid = (SELECT max(rowid) FROM memory_ops)");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  test::expectSameTrace(original, *read);
}

TEST(ProfileDatabaseTest, DanglingArgumentsIdIsReportedWithRowAndColumn) {
  test::ScratchDir dir;
  const std::string path = dir.file("dangling-args.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE ranges SET arguments_id = 100000 WHERE arguments_id != 0");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'ranges' row 3: arguments_id = 100000"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, MissingColumnIsNamedWithItsTable) {
  test::ScratchDir dir;
  const std::string path = dir.file("broken.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "ALTER TABLE kernel_configs DROP COLUMN grid_y");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernel_configs' has no column 'grid_y'"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, DanglingStringIdIsReportedWithRowAndColumn) {
  test::ScratchDir dir;
  const std::string path = dir.file("dangling.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE kernel_configs SET name_id = 100000");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernel_configs' row 1: name_id = 100000"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, LargeKernelTablesReadInTwoHalvesKeepTheirOrder) {
  test::ScratchDir dir;
  Trace original = makeSampleTrace();
  const Kernel model = original.kernels[0];
  for (std::int64_t i = 1; i < 300000; ++i) {  // beyond the threshold for two readers
    Kernel k = model;
    k.start_ns += i * 1000;
    k.end_ns += i * 1000;
    k.correlation_id += static_cast<std::uint64_t>(i);
    k.grid = {static_cast<std::uint32_t>(i % 65536 + 1), static_cast<std::uint32_t>(i % 7 + 1), 1};
    k.stream = static_cast<std::uint32_t>(i % 5);
    original.kernels.push_back(k);
  }
  const std::string path = dir.file("large.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  test::expectSameTrace(original, *read);
}

TEST(ProfileDatabaseTest, LargeKernelTableWithDeletedRowsReadsTheRemainingRowsInOrder) {
  test::ScratchDir dir;
  Trace original = makeSampleTrace();
  const Kernel model = original.kernels[0];
  original.kernels.clear();
  for (std::int64_t i = 0; i < 250000; ++i) {
    Kernel k = model;
    k.start_ns = i;
    k.end_ns = i + 1;
    original.kernels.push_back(k);
  }
  const std::string path = dir.file("gaps.sqlite");
  ASSERT_TRUE(writeProfile(path, original).ok());
  // Gaps in both halves of the rowid span.
  execute(path, "DELETE FROM kernels WHERE rowid BETWEEN 1000 AND 1999 OR rowid BETWEEN 200000 AND 200099");
  auto read = readProfile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->kernels.size(), 250000u - 1100u);
  EXPECT_EQ(read->kernels[998].start_ns, 998);
  EXPECT_EQ(read->kernels[999].start_ns, 1999);  // rowid 2000 held start 1999
  EXPECT_EQ(read->kernels.back().start_ns, 249999);
  EXPECT_TRUE(std::is_sorted(read->kernels.begin(), read->kernels.end(),
                             [](const Kernel& a, const Kernel& b) { return a.start_ns < b.start_ns; }));
}

TEST(ProfileDatabaseTest, RepeatedLaunchConfigurationsAreStoredOnce) {
  Trace trace = makeSampleTrace();
  Kernel other = trace.kernels[0];
  other.grid[0] += 1;
  trace.kernels.push_back(trace.kernels[0]);
  trace.kernels.push_back(other);
  trace.kernels.push_back(trace.kernels[0]);
  const KernelConfigTable table = buildKernelConfigs(trace.kernels);
  EXPECT_EQ(table.configs.size(), 2u);
  EXPECT_EQ(table.config_of_kernel, (std::vector<std::uint32_t>{0, 0, 1, 0}));
}

TEST(ProfileDatabaseTest, KernelPointingToAMissingConfigurationIsNamed) {
  test::ScratchDir dir;
  const std::string path = dir.file("dangling-config.sqlite");
  ASSERT_TRUE(writeProfile(path, makeSampleTrace()).ok());
  execute(path, "UPDATE kernels SET config_id = 5");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("table 'kernels' row 1: config_id = 5"), std::string::npos)
      << read.error().message;
}

TEST(ProfileDatabaseTest, OtherSqliteDatabaseIsNotAProfile) {
  test::ScratchDir dir;
  const std::string path = dir.file("other.sqlite");
  execute(path, "CREATE TABLE t (x INTEGER)");
  auto read = readProfile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("not an ampscope profile"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::trace::db
