// The Nsight Systems importer reads its event tables in slices of rowids on several threads, each
// row into its process's slices where the export holds several processes: what it reads must not
// depend on the number of threads, on how the rowids are spread, on the order of the rows in the
// file (Nsight Systems 2025.6 stopped promising time order), on reading process by process, or on
// whether the processes that wait their turn wait in a spill file or in memory.

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../test_support.h"
#include "analyzer/core/read_window.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "analyzer/import/nsight/spill_file.h"
#include "analyzer/import/nsight/table_slices.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/job/process_split.h"
#include "analyzer/job_files.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {
namespace {

constexpr const char* kShared = "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite";
constexpr const char* kEventTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                                        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"};

// Every record of a trace as text, names and threads spelled out (string ids and thread indices
// may differ between two reads of the same rows), in the trace's order.
std::vector<std::string> records(const trace::Trace& t) {
  std::vector<std::string> out;
  const auto thread = [&](trace::Index i) {
    return i == trace::kNone ? std::string("-") : fmt::format("{}/{}", t.threads[i].pid, t.threads[i].tid);
  };
  for (const trace::Kernel& k : t.kernels) {
    out.push_back(fmt::format("K {} {} {} d{} s{} c{} p{} g{},{},{} b{},{},{} r{} m{}", k.start_ns, k.end_ns, t.str(k.name),
                              k.device, k.stream, k.correlation_id, k.pid, k.grid[0], k.grid[1], k.grid[2], k.block[0],
                              k.block[1], k.block[2], k.registers_per_thread, k.shared_memory_bytes));
  }
  for (const trace::LaunchCall& l : t.launches) {
    out.push_back(fmt::format("L {} {} {} c{} t{} a{}", l.start_ns, l.end_ns, t.str(l.name), l.correlation_id,
                              thread(l.thread), static_cast<int>(l.api)));
  }
  for (const trace::Range& r : t.ranges) {
    out.push_back(fmt::format("R {} {} {} t{} op{} sh{} seq{} id{} d{} c{}", r.start_ns, r.end_ns, t.str(r.name),
                              thread(r.thread), t.str(r.op), t.str(r.shapes), r.sequence_number, r.op_id,
                              t.str(r.domain), r.category));
  }
  for (const trace::MemoryOp& m : t.memory_ops) {
    out.push_back(fmt::format("M {} {} d{} s{} c{} b{} k{} p{}", m.start_ns, m.end_ns, m.device, m.stream,
                              m.correlation_id, m.bytes, static_cast<int>(m.kind), m.pid));
  }
  for (const trace::Synchronization& y : t.synchronizations) {
    out.push_back(fmt::format("Y {} {} d{} s{} c{} p{}", y.start_ns, y.end_ns, y.device, y.stream, y.correlation_id, y.pid));
  }
  return out;
}

class NsysSlicesTest : public ::testing::Test {
 protected:
  // A copy of the shared two-process export, its event tables repeated `copies` times (each copy
  // shifted past the last, as bench/make_large_nsys.py makes them) so that the larger tables
  // span several slices.
  std::string largeExport(int copies) {
    const std::string source = test::sharedTrace(kShared);
    const std::string path = scratch_.file(fmt::format("large{}.sqlite", copies));
    std::filesystem::copy_file(source, path, std::filesystem::copy_options::overwrite_existing);
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    EXPECT_TRUE(db) << db.error().message;
    for (const char* table : kEventTables) {
      const std::vector<std::string> columns = db->columns(table);
      std::string names;
      std::string shifted;
      for (const std::string& c : columns) {
        names += (names.empty() ? "" : ", ") + c;
        const bool time = c == "start" || c == "end";
        shifted += (shifted.empty() ? "" : ", ") + (time ? c + " + n.i * 2000000000" : c == "correlationId" ? c + " + n.i * 100000000" : c);
      }
      const trace::Status grown = db->execute(fmt::format(
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {}) "
          "INSERT INTO {} ({}) SELECT {} FROM {}, n ORDER BY n.i, {}.rowid",
          copies - 1, table, names, shifted, table, table));
      EXPECT_TRUE(grown) << grown.error().message;
    }
    return path;
  }

  // Rewrites each event table with its rows in the order `order_by` gives (rowids renumbered).
  static void reorder(const std::string& path, const std::string& order_by_rows, const std::string& order_by_kernels) {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    for (const char* table : kEventTables) {
      const bool by_thread = db->hasColumn(table, "globalTid");
      const std::string order = by_thread ? order_by_rows : order_by_kernels;
      const trace::Status done = db->execute(fmt::format(
          "CREATE TABLE reordered AS SELECT * FROM {0} ORDER BY {1}; DROP TABLE {0}; ALTER TABLE reordered RENAME TO {0};",
          table, order));
      ASSERT_TRUE(done) << done.error().message;
    }
  }

  // Spreads each event table's rowids `factor` apart.
  static void spreadRowids(const std::string& path, std::int64_t factor) {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    for (const char* table : kEventTables) {
      const trace::Status done = db->execute(
          fmt::format("UPDATE {0} SET rowid = -rowid; UPDATE {0} SET rowid = -rowid * {1};", table, factor));
      ASSERT_TRUE(done) << done.error().message;
    }
  }

  static trace::Trace importWhole(const std::string& path, unsigned threads) {
    auto t = importTrace(path, {.progress = {}, .threads = threads});
    EXPECT_TRUE(t) << t.error().message;
    return t ? std::move(t).value() : trace::Trace{};
  }

  static std::vector<trace::ProcessTrace> importParts(const std::string& path, unsigned threads,
                                                      std::optional<ReadWindow> window = std::nullopt) {
    std::vector<trace::ProcessTrace> parts;
    const trace::Status read = importTraceByProcess(path, {.progress = {}, .threads = threads, .window = window}, {},
                                                    std::nullopt,
                                                    [&](trace::ProcessTrace&& part) {
                                                      parts.push_back(std::move(part));
                                                      return trace::Status{};
                                                    });
    EXPECT_TRUE(read) << read.error().message;
    return parts;
  }

  test::ScratchDir scratch_;
};

TEST_F(NsysSlicesTest, ATableIsCutIntoSlicesOfRowids) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(12);
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
  ASSERT_TRUE(db);
  const auto slices = rowidSlices(*db, "NVTX_EVENTS");
  ASSERT_TRUE(slices) << slices.error().message;
  ASSERT_GE(slices->size(), 2u) << "the test needs a table of several slices";
  EXPECT_EQ(slices->front().first, 1);
  for (std::size_t i = 1; i < slices->size(); ++i) EXPECT_EQ((*slices)[i].first, (*slices)[i - 1].end);
  const auto empty = rowidSlices(*db, "NO_SUCH_TABLE");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST_F(NsysSlicesTest, OneThreadAndSeveralReadTheSameTrace) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(12);
  const trace::Trace one = importWhole(path, 1);
  const trace::Trace three = importWhole(path, 3);
  ASSERT_GT(one.ranges.size(), static_cast<std::size_t>(kRowidsPerSlice));
  EXPECT_EQ(records(one), records(three));
  EXPECT_EQ(one.import_stats, three.import_stats);
  EXPECT_EQ(one.threads, three.threads);
  // The same string ids too: strings are interned in the order of the file, whoever read them.
  ASSERT_EQ(one.strings.size(), three.strings.size());
  for (std::size_t i = 0; i < one.strings.size(); ++i) {
    EXPECT_EQ(one.strings.view(static_cast<trace::StringId>(i)), three.strings.view(static_cast<trace::StringId>(i)));
  }
}

TEST_F(NsysSlicesTest, RowidsSpreadApartReadTheSame) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(3);
  const std::vector<std::string> dense = records(importWhole(path, 2));
  spreadRowids(path, 1000);  // slices of a few rows each
  EXPECT_EQ(records(importWhole(path, 2)), dense);
  spreadRowids(path, 10'000'000'000);  // too far apart to cut: one slice per table
  EXPECT_EQ(records(importWhole(path, 2)), dense);
}

TEST_F(NsysSlicesTest, RowsOutOfTimeOrderReadAsTheSortedExport) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(3);
  const trace::Trace sorted = importWhole(path, 2);
  // As a tool that writes each thread's and stream's buffer when it fills: grouped by thread or
  // stream, each group in time order.
  reorder(path, "globalTid, start", "streamId DESC, start");
  const trace::Trace grouped = importWhole(path, 2);
  EXPECT_EQ(records(grouped), records(sorted));
  EXPECT_EQ(grouped.threads, sorted.threads);
  // Every row anywhere.
  reorder(path, "(rowid * 2654435761) % 1000003", "(rowid * 2654435761) % 1000003");
  const trace::Trace shuffled = importWhole(path, 2);
  EXPECT_EQ(records(shuffled), records(sorted));
  EXPECT_EQ(shuffled.threads, sorted.threads);
}

TEST_F(NsysSlicesTest, AnUnsortedExportGivesTheSameJob) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = scratch_.file("copy.sqlite");
  std::filesystem::copy_file(source, path);
  const auto sorted = rankResultsOfFile(path, {});
  ASSERT_TRUE(sorted) << sorted.error().message;
  reorder(path, "globalTid DESC, start", "streamId DESC, start");
  const auto unsorted = rankResultsOfFile(path, {});
  ASSERT_TRUE(unsorted) << unsorted.error().message;
  ASSERT_EQ(sorted->size(), 2u);
  EXPECT_EQ(*unsorted, *sorted);
}

TEST_F(NsysSlicesTest, ProcessByProcessReadsWhatSplittingTheWholeTraceGives) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(3);
  const std::vector<trace::ProcessTrace> parts = importParts(path, 2);
  const std::vector<trace::ProcessTrace> split = splitByProcess(importWhole(path, 2));
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_EQ(split.size(), parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_TRUE(parts[i].one_of_several);
    EXPECT_EQ(parts[i].pid, split[i].pid);
    EXPECT_EQ(parts[i].first_device, split[i].first_device);
    EXPECT_EQ(records(parts[i].trace), records(split[i].trace));
    // Its own threads alone, and its own rows read; the others counted as the file's other rows.
    for (const trace::Thread& thread : parts[i].trace.threads) EXPECT_EQ(thread.pid, parts[i].pid);
    const trace::ImportStats& stats = parts[i].trace.import_stats;
    EXPECT_EQ(stats.events_read, parts[i].trace.eventCount());
    EXPECT_EQ(stats.events_read + stats.skipped.at(trace::kOtherProcessesSkipped),
              parts[0].trace.eventCount() + parts[1].trace.eventCount());
  }
  // One process alone, where only that one is asked for.
  std::vector<trace::ProcessTrace> second;
  const trace::Status read = importTraceByProcess(path, {}, {}, parts[1].pid, [&](trace::ProcessTrace&& part) {
    second.push_back(std::move(part));
    return trace::Status{};
  });
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(records(second[0].trace), records(parts[1].trace));
}

TEST_F(NsysSlicesTest, EachProcessCountsEveryOtherRowOfTheFileAsPassedByAsAReadOfItAloneDoes) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(2);
  std::int64_t file_rows = 0;
  {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    // Rows of a third process that ran no kernels (a data loader's ranges and calls) and rows that
    // name no process: read by no rank, counted by each as the file's other rows.
    const trace::Status added = db->execute(
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
        "SELECT start, end, eventType, 'loader', (999 << 24) | 7 FROM NVTX_EVENTS WHERE rowid <= 50;"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
        "SELECT start, end, eventType, 'nobody', NULL FROM NVTX_EVENTS WHERE rowid <= 20;"
        "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = (999 << 24) | 7 WHERE rowid <= 30;");
    ASSERT_TRUE(added) << added.error().message;
    for (const char* table : kEventTables) {
      auto count = db->prepare(fmt::format("SELECT count(*) FROM {}", table));
      ASSERT_TRUE(count && count->step());
      file_rows += count->int64(0);
    }
  }
  const std::vector<trace::ProcessTrace> parts = importParts(path, 2);
  ASSERT_EQ(parts.size(), 2u);
  for (const trace::ProcessTrace& part : parts) {
    const trace::ImportStats& stats = part.trace.import_stats;
    EXPECT_EQ(static_cast<std::int64_t>(stats.events_read + stats.skipped.at(trace::kOtherProcessesSkipped)), file_rows);
    std::vector<trace::ProcessTrace> alone;
    const trace::Status read = importTraceByProcess(path, {}, {}, part.pid, [&](trace::ProcessTrace&& p) {
      alone.push_back(std::move(p));
      return trace::Status{};
    });
    ASSERT_TRUE(read) << read.error().message;
    ASSERT_EQ(alone.size(), 1u);
    EXPECT_EQ(alone[0].trace.import_stats.skipped, stats.skipped);
    EXPECT_EQ(alone[0].trace.import_stats.events_read, stats.events_read);
    EXPECT_EQ(records(alone[0].trace), records(part.trace));
  }
}

TEST_F(NsysSlicesTest, AProcessWithNoRecordsInTheWindowIsNoRankAndTheOthersSayTheJobHadIt) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = scratch_.file("shifted.sqlite");
  std::filesystem::copy_file(source, path);
  const std::vector<trace::ProcessTrace> whole = importParts(path, 2);
  ASSERT_EQ(whole.size(), 2u);
  {
    // The second process's records move 1000 s later.
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    for (const char* table : kEventTables) {
      const std::string process_column = db->hasColumn(table, "globalPid") ? "globalPid" : "globalTid";
      const trace::Status moved = db->execute(fmt::format(
          "UPDATE {} SET start = start + 1000000000000, end = end + 1000000000000 WHERE (({} >> 24) & 16777215) = {}",
          table, process_column, whole[1].pid));
      ASSERT_TRUE(moved) << moved.error().message;
    }
  }
  const std::vector<trace::ProcessTrace> windowed = importParts(path, 2, parseReadWindow("0:900").value());
  ASSERT_EQ(windowed.size(), 1u);
  EXPECT_EQ(windowed[0].pid, whole[0].pid);
  EXPECT_TRUE(windowed[0].one_of_several);
  EXPECT_EQ(records(windowed[0].trace), records(whole[0].trace));
  EXPECT_EQ(windowed[0].trace.distributed.world_size, 2);
  EXPECT_EQ(windowed[0].trace.import_stats.skipped.at(
                "processes with kernels but no records in --window 0:900 (not ranks of the job)"),
            1u);
  // Without a window both processes are ranks, and nothing is said of a world size.
  const std::vector<trace::ProcessTrace> unwindowed = importParts(path, 2);
  ASSERT_EQ(unwindowed.size(), 2u);
  EXPECT_FALSE(unwindowed[0].trace.distributed.worldSizeKnown());
}

// The rows are read from the file's pages, a window's and a process's rows kept by the same
// conditions SQLite applies to a statement's (nsys_row_conditions.h). Every read must give what
// reading every row through SQLite's statements gives: whole, by process, one process alone, and
// in windows whose edges cut ranges, marks, ranges never ended (no end, or one before their
// start) and instants.
TEST_F(NsysSlicesTest, TheFilesPagesReadWhatSqlitesStatementsRead) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(3);
  {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(db->execute("UPDATE NVTX_EVENTS SET end = NULL WHERE rowid % 97 = 0; "
                            "UPDATE NVTX_EVENTS SET end = start - 5 WHERE rowid % 89 = 0; "
                            "UPDATE NVTX_EVENTS SET end = start WHERE rowid % 83 = 0; "
                            "UPDATE NVTX_EVENTS SET eventType = 34, end = NULL WHERE rowid % 79 = 0; "
                            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start WHERE rowid % 71 = 0;"));
  }
  const auto read = [&](bool pages, std::optional<ReadWindow> window, std::optional<std::int64_t> only) {
    std::vector<std::vector<std::string>> out;
    const trace::Status status =
        importTraceByProcess(path, {.progress = {}, .threads = 2, .window = window, .read_pages = pages}, {}, only,
                             [&](trace::ProcessTrace&& part) {
                               out.push_back(records(part.trace));
                               out.back().push_back(fmt::format("pid {} read {} imported {}", part.pid,
                                                                part.trace.import_stats.events_read,
                                                                part.trace.import_stats.events_imported));
                               return trace::Status{};
                             });
    EXPECT_TRUE(status) << status.error().message;
    return out;
  };
  const std::vector<std::vector<std::string>> whole = read(false, std::nullopt, std::nullopt);
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_EQ(read(true, std::nullopt, std::nullopt), whole);
  const std::vector<trace::ProcessTrace> parts = importParts(path, 2);
  ASSERT_EQ(parts.size(), 2u);
  for (const std::int64_t pid : {parts[0].pid, parts[1].pid}) {
    SCOPED_TRACE(pid);
    EXPECT_EQ(read(true, std::nullopt, pid), read(false, std::nullopt, pid));
  }
  // Windows that start where an instant kernel does, to the nanosecond (an instant at the
  // window's start is in it).
  std::vector<std::string> windows;
  {
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
    ASSERT_TRUE(db) << db.error().message;
    auto instants = db->prepare("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end = start LIMIT 2 OFFSET 5");
    ASSERT_TRUE(instants);
    while (instants->step()) {
      const std::int64_t ns = instants->int64(0);
      windows.push_back(fmt::format("{}.{:09}:{}", ns / 1000000000, ns % 1000000000, ns / 1000000000 + 1));
    }
    ASSERT_EQ(windows.size(), 2u);
  }
  // The recording runs from 155.358 s to 160.327 s (three copies, each 2 s after the last).
  for (const char* asked : {"155.5:155.9", "155:155.4", "155.9:157.6", "157.35:158.1", "159.5:170"}) windows.push_back(asked);
  for (const std::string& asked : windows) {
    SCOPED_TRACE(asked);
    const ReadWindow window = parseReadWindow(asked).value();
    const auto by_statements = read(false, window, std::nullopt);
    ASSERT_FALSE(by_statements.empty());
    EXPECT_EQ(read(true, window, std::nullopt), by_statements);
    EXPECT_EQ(read(true, window, parts[1].pid), read(false, window, parts[1].pid));
  }
}

TEST_F(NsysSlicesTest, WhereNoSpillFileCanBeMadeTheProcessesWaitInMemoryAndReadTheSame) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, kShared);
  const std::string path = largeExport(3);
  const std::vector<trace::ProcessTrace> spilled = importParts(path, 2);
  std::vector<trace::ProcessTrace> in_memory;
  {
    const test::ScopedEnvironmentVariable nowhere("TMPDIR", scratch_.file("no-such-directory"));
    ASSERT_EQ(SpillFile::make(), nullptr);
    in_memory = importParts(path, 2);
  }
  ASSERT_EQ(spilled.size(), 2u);
  ASSERT_EQ(in_memory.size(), spilled.size());
  for (std::size_t i = 0; i < spilled.size(); ++i) {
    EXPECT_EQ(in_memory[i].pid, spilled[i].pid);
    EXPECT_EQ(records(in_memory[i].trace), records(spilled[i].trace));
    EXPECT_EQ(in_memory[i].trace.import_stats.events_read, spilled[i].trace.import_stats.events_read);
  }
}

TEST_F(NsysSlicesTest, RowsThatStartTogetherOnTwoStreamsOrThreadsReadTheSameInEitherFileOrder) {
  // Two kernels on two streams, two calls on two threads and two ranges on two threads, each pair
  // starting at the same nanosecond; one file has each pair in one order, the other in the other.
  const auto make = [&](const std::string& name, bool swapped) {
    const std::string path = scratch_.file(name);
    auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
    EXPECT_TRUE(db);
    EXPECT_TRUE(db->execute(test::readFile(test::testData("nsys_small.sql"))));
    const std::string kernel_a =
        "(1500000000, 1500001000, 0, 1, NULL, 7, 901, 281891336880128, 10, 10, 10, 1, 0, 32, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 901, 0, NULL, 1, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, '')";
    const std::string kernel_b =
        "(1500000000, 1500002000, 0, 1, NULL, 13, 902, 281891336880128, 12, 12, 12, 1, 0, 32, 2, 1, 1, 32, 1, 1, 0, 0, 0, 0, 902, 0, NULL, 1, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, '')";
    const trace::Status kernels = db->execute(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES {}, {};",
                                                          swapped ? kernel_b : kernel_a, swapped ? kernel_a : kernel_b));
    EXPECT_TRUE(kernels) << kernels.error().message;
    // The fixture's main and loader threads of process 24817, as globalTid packs them.
    const std::string main_thread = "281891336904945";
    const std::string loader_thread = "281891336905031";
    const std::string range_a = "(1500000000, 1500005000, 59, 'one', " + main_thread + ")";
    const std::string range_b = "(1500000000, 1500005000, 59, 'two', " + loader_thread + ")";
    const trace::Status ranges = db->execute(fmt::format("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES {}, {};",
                                                         swapped ? range_b : range_a, swapped ? range_a : range_b));
    EXPECT_TRUE(ranges) << ranges.error().message;
    // Columns: start, end, eventClass, globalTid, correlationId, nameId, returnValue, callchainId.
    const std::string call_a = "(1500000000, 1500001000, 0, " + main_thread + ", 911, 1, 0, NULL)";
    const std::string call_b = "(1500000000, 1500003000, 0, " + loader_thread + ", 912, 2, 0, NULL)";
    const trace::Status calls = db->execute(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES {}, {};",
                                                        swapped ? call_b : call_a, swapped ? call_a : call_b));
    EXPECT_TRUE(calls) << calls.error().message;
    return path;
  };
  const trace::Trace one = importWhole(make("one.sqlite", false), 1);
  const trace::Trace other = importWhole(make("other.sqlite", true), 1);
  EXPECT_EQ(records(one), records(other));
}

TEST_F(NsysSlicesTest, ATableReachingTheLargestRowidIsReadAsOneSlice) {
  const std::string path = scratch_.file("far.sqlite");
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute(test::readFile(test::testData("nsys_small.sql"))));
  const std::vector<std::string> before = records(importWhole(path, 2));
  // No slice can end past the largest rowid: cut naively, the slices would never end.
  ASSERT_TRUE(db->execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 9223372036854775807 "
                          "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"));
  const auto slices = rowidSlices(*db, "CUPTI_ACTIVITY_KIND_KERNEL");
  ASSERT_TRUE(slices) << slices.error().message;
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ(slices->front().first, kEveryRowid.first);
  EXPECT_EQ(records(importWhole(path, 2)), before);
}

TEST_F(NsysSlicesTest, AnExportOfOneProcessComesWhole) {
  const std::string path = scratch_.file("small.sqlite");
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute(test::readFile(test::testData("nsys_small.sql"))));
  const std::vector<trace::ProcessTrace> parts = importParts(path, 2);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_FALSE(parts[0].one_of_several);
  EXPECT_EQ(records(parts[0].trace), records(importWhole(path, 2)));
}

}  // namespace
}  // namespace ampscope::analyzer::import
