// One Kineto trace read with one parsing thread and with several: the same trace, and the same
// first error, whatever the number of threads and wherever the batches break.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "../test_support.h"
#include "analyzer/import/byte_source.h"
#include "analyzer/import/kineto/chrome_trace_stream.h"
#include "analyzer/import/kineto/kineto_importer.h"
#include "analyzer/import/kineto/kineto_parallel_parse.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer::import {
namespace {

void expectSameTrace(const trace::Trace& a, const trace::Trace& b) {
  EXPECT_EQ(a.format_detail, b.format_detail);
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (trace::StringId id = 0; id < a.strings.size(); ++id) ASSERT_EQ(a.str(id), b.str(id)) << "string " << id;
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.devices, b.devices);
  EXPECT_EQ(a.kernels, b.kernels);
  EXPECT_EQ(a.launches, b.launches);
  EXPECT_EQ(a.memory_ops, b.memory_ops);
  EXPECT_EQ(a.synchronizations, b.synchronizations);
  EXPECT_EQ(a.ranges, b.ranges);
  EXPECT_EQ(a.communication_messages, b.communication_messages);
  EXPECT_EQ(a.memory_events, b.memory_events);
  EXPECT_EQ(a.import_stats, b.import_stats);
}

trace::Trace importWith(const std::string& path, unsigned threads) {
  auto imported = importTrace(path, {.progress = {}, .threads = threads, .window = {}});
  EXPECT_TRUE(imported.ok()) << imported.error().message;
  return imported.ok() ? std::move(imported).value() : trace::Trace{};
}

// An event whose JSON is broken (a '}' closes a '['): the file is refused, naming it.
constexpr std::string_view kBrokenEvent =
    R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 1, "pid": 0, "tid": "stream 7", "args": {"grid": [1, 2}}})";
// An event that cannot be placed in time: counted with its place and left out, the file read on.
constexpr std::string_view kEventAtNoTime =
    R"({"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 1, "pid": 0, "tid": "stream 7"})";

// Many events of every kind the importer keeps or counts, with labelled pids and tids, thread
// names given twice, and strings that repeat across batches: several megabytes, so several batches.
std::string manyEvents(int count, int bad_at = -1, int second_bad_at = -1, std::string_view bad_event = kBrokenEvent) {
  std::string json = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  for (int i = 0; i < count; ++i) {
    if (i > 0) json += ",\n";
    const int thread = i % 7;
    if (i == bad_at || i == second_bad_at) {
      json += bad_event;
      continue;
    }
    switch (i % 6) {
      case 0:
        json += fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "aten::op{}", "pid": "proc {}", "tid": {}, "ts": {}, "dur": 3, )"
                            R"("args": {{"Input Dims": [[{}, 64], []], "Input type": ["float", ""], "Sequence number": {}}}}})",
                            i % 50, i % 3, thread, 1000 + i * 10, i % 13, i);
        break;
      case 1:
        json += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "worker {}", "ts": {}, "dur": 2, )"
                            R"("args": {{"correlation": {}, "cbid": 211}}}})",
                            thread, 1001 + i * 10, i);
        break;
      case 2:
        json += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "gemm_{}_kernel", "pid": 0, "tid": "stream {}", "ts": {}, "dur": 5, )"
                            R"("args": {{"correlation": {}, "device": 0, "stream": {}, "grid": [{}, 1, 1], "block": [128, 1, 1]}}}})",
                            i % 40, 7 + thread % 2, 1003 + i * 10, i - 1, 7 + thread % 2, i % 100 + 1);
        break;
      case 3:
        json += fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": 1, "tid": "worker {}", "args": {{"name": "loader {}"}}}})",
                            thread, i % 2);
        break;
      case 4:
        if (i % 12 == 4) {
          json += fmt::format(R"({{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {}, "cat": "ac2g", "name": "ac2g", "bp": "e"}})", i,
                              1003 + i * 10);
        } else {  // an allocation on a labelled thread, whose index the merge translates
          json += fmt::format(R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": "worker {}", "ts": {}, )"
                              R"("args": {{"Device Type": 1, "Device Id": 0, "Bytes": {}, "Addr": {}, "Total Allocated": {}}}}})",
                              thread, 1003 + i * 10, 512 + i, 4096 * i, 1000 * i);
        }
        break;
      default:
        json += fmt::format(R"({{"ph": "X", "cat": "new_category_{}", "name": "x", "pid": 1, "tid": 1, "ts": {}, "dur": 1}})",
                            i % 3, 1005 + i * 10);
        break;
    }
  }
  return json + "\n], \"baseTimeNanoseconds\": 1700000000000000000}\n";
}

TEST(KinetoParallelParseTest, ManyBatchesGiveTheSameTraceOnOneThreadAndOnSeveral) {
  test::ScratchDir dir;
  const std::string json = manyEvents(30000);
  ASSERT_GT(json.size(), 4u << 20) << "the trace should span several batches";
  const std::string path = dir.write("many.json", json);
  const trace::Trace one = importWith(path, 1);
  EXPECT_EQ(one.import_stats.events_read, 30000u);
  EXPECT_EQ(one.kernels.size(), 5000u);
  EXPECT_EQ(one.ranges.size(), 5000u);
  EXPECT_EQ(one.memory_events.size(), 2500u);
  // Events are spread evenly through this plain file: the vectors grew to their final size from
  // the rate of the first batches (with a tenth to spare), not by doubling past it.
  EXPECT_LE(one.kernels.capacity(), one.kernels.size() * 13 / 10);
  EXPECT_LE(one.ranges.capacity(), one.ranges.size() * 13 / 10);
  ASSERT_FALSE(one.threads.empty());
  for (unsigned threads : {2u, 3u, 8u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    expectSameTrace(one, importWith(path, threads));
  }
}

TEST(KinetoParallelParseTest, AFileThatOpensWithAllItsKernelsReservesAtMostEightTimesThem) {
  // 3,000 kernels in the first batch, then 20 MB of flow events: the first batch's rate promises
  // some 60,000 kernels, but a guess from one batch grows a vector at most eightfold.
  test::ScratchDir dir;
  std::string json = "{\"traceEvents\": [\n";
  constexpr int kKernels = 3000;
  for (int i = 0; i < kKernels; ++i) {
    json += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": {}, "dur": 1, )"
                        R"("args": {{"correlation": {}, "device": 0, "stream": 7}}}},)" "\n", i * 2, i);
  }
  for (int i = 0; json.size() < (20u << 20); ++i) {
    json += fmt::format(R"({{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {}, "cat": "ac2g", "name": "ac2g", "bp": "e"}},)" "\n", i, i);
  }
  json += R"({"ph": "i", "name": "end", "pid": 0, "tid": 7, "ts": 1}]})";
  const trace::Trace trace = importWith(dir.write("front_loaded.json", json), 1);
  ASSERT_EQ(trace.kernels.size(), static_cast<std::size_t>(kKernels));
  EXPECT_LE(trace.kernels.capacity(), trace.kernels.size() * 8);
}

TEST(KinetoParallelParseTest, RealTracesAreTheSameOnOneThreadAndOnSeveral) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(dlrm, "kineto-a100-dlrm-tf32/control.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(timesformer, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  for (const std::string& path : {dlrm, timesformer}) {
    SCOPED_TRACE(path);
    const trace::Trace one = importWith(path, 1);
    ASSERT_GT(one.kernels.size(), 400u);
    expectSameTrace(one, importWith(path, 4));
  }
}

TEST(KinetoParallelParseTest, TheFirstBadEventIsReportedWhateverTheThreads) {
  test::ScratchDir dir;
  // Bad events in the third and the fifth megabyte: the first one is the error.
  const std::string path = dir.write("bad.json", manyEvents(30000, 14000, 24000));
  for (unsigned threads : {1u, 2u, 4u}) {
    auto imported = importTrace(path, {.progress = {}, .threads = threads, .window = {}});
    ASSERT_FALSE(imported.ok()) << threads << " threads";
    EXPECT_NE(imported.error().message.find("traceEvents element #14000 at byte offset"), std::string::npos)
        << threads << " threads: " << imported.error().message;
  }
}

TEST(KinetoParallelParseTest, EventsLeftOutAreCountedAtTheFirstOnesPlaceWhateverTheThreads) {
  test::ScratchDir dir;
  const std::string json = manyEvents(30000, 14000, 24000, kEventAtNoTime);
  const std::string path = dir.write("no_time.json", json);
  const std::string reason = "'kernel' events without a readable \"ts\" (left out)";
  const std::string place = fmt::format("traceEvents element at byte offset {}", json.find(kEventAtNoTime));
  for (unsigned threads : {1u, 2u, 4u}) {
    SCOPED_TRACE(fmt::format("{} threads", threads));
    auto imported = importTrace(path, {.progress = {}, .threads = threads, .window = {}});
    ASSERT_TRUE(imported.ok()) << imported.error().message;
    EXPECT_EQ(imported->import_stats.not_understood.at(reason), 2u);
    EXPECT_EQ(imported->import_stats.first_place.at(reason), place);
    EXPECT_EQ(imported->import_stats.events_read, 30000u);
  }
}

TEST(KinetoParallelParseTest, ABadEventBeforeATruncationIsTheErrorAndATruncationAloneIsReportedAsOne) {
  test::ScratchDir dir;
  const std::string bad = manyEvents(30000, 9000);
  const std::string clean = manyEvents(30000);
  const std::string bad_path = dir.write("bad_truncated.json", bad.substr(0, bad.size() * 3 / 4));
  const std::string truncated_path = dir.write("truncated.json", clean.substr(0, clean.size() * 3 / 4));
  for (unsigned threads : {1u, 4u}) {
    auto bad_result = importTrace(bad_path, {.progress = {}, .threads = threads, .window = {}});
    ASSERT_FALSE(bad_result.ok());
    EXPECT_NE(bad_result.error().message.find("element #9000 at"), std::string::npos) << bad_result.error().message;
    auto truncated_result = importTrace(truncated_path, {.progress = {}, .threads = threads, .window = {}});
    ASSERT_FALSE(truncated_result.ok());
    EXPECT_NE(truncated_result.error().message.find("truncated?"), std::string::npos) << truncated_result.error().message;
  }
}

TEST(KinetoParallelParseTest, AFileThatFillsItsLastPageExactlyIsReadInPlace) {
  // The last event ends 2 bytes before the end of a page-sized file: the padding simdjson reads
  // past it lies beyond the file, where the mapping must still give zeros.
  test::ScratchDir dir;
  const long page = sysconf(_SC_PAGESIZE);
  for (const long pages : {1L, 2L}) {
    const std::string head = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")";
    const std::string tail = R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})";
    const std::string json = head + std::string(static_cast<std::size_t>(pages * page) - head.size() - tail.size(), 'n') + tail;
    ASSERT_EQ(json.size(), static_cast<std::size_t>(pages * page));
    auto imported = importTrace(dir.write("page.json", json), {.progress = {}, .threads = 2, .window = {}});
    ASSERT_TRUE(imported.ok()) << imported.error().message;
    ASSERT_EQ(imported->ranges.size(), 1u);
    EXPECT_EQ(imported->str(imported->ranges[0].name).size(), json.size() - head.size() - tail.size());
  }
}

// Events among which some hold what looks like the gap between two elements ('}', a comma, '{')
// but is not: inside strings (escaped quotes too), between objects nested in args; and members
// before and after the events array hold some too. Separators vary, compact ones included.
// Names and threads are new all along, so a chunk that is dropped has grown its parser's tables.
constexpr std::string_view kLateEvent =
    R"({"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"x": [}]}})";
// An event without a time, which is counted and left out rather than refused.
constexpr std::string_view kTimelessEvent = R"({"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "dur": 1})";

std::string decoyEvents(int count, int bad_at = -1, std::string_view bad_event = kLateEvent) {
  std::string json = R"({"before": [{"a": 1}, {"b": [{"c": 2}, {"d": 3}]}], "traceEvents": [)";
  for (int i = 0; i < count; ++i) {
    if (i > 0) json += i % 4 == 0 ? "," : i % 4 == 1 ? ",\n  " : i % 4 == 2 ? " , " : ",\r\n";
    if (i == bad_at) {
      json += bad_event;
      continue;
    }
    switch (i % 20) {
      case 0:
        json += fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "op{}\"}}, {{\"x}}, {{", "pid": 1, "tid": {}, )"
                            R"("ts": {}, "dur": 4, "args": {{"Input Dims": [[{}, 8]], "Input type": ["float"]}}}})",
                            i, i % 9, 100 + i * 10, i);
        break;
      case 7:
        json += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": {}, )"
                            R"("ts": {}, "dur": 2, "args": {{"nested": [{{"a": 1}}, {{"b": {{"c": [{{}}, {{}}]}}}}], "correlation": {}}}}})",
                            i % 9, 101 + i * 10, i);
        break;
      case 14:
        json += fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": 1, "tid": {}, "args": {{"name": "t{}}}, {{"}}}})",
                            i % 9, i);
        break;
      default:
        if (i % 2 == 0) {
          json += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "kernel_{}", "pid": 0, "tid": {}, "ts": {}, "dur": 3, )"
                              R"("args": {{"correlation": {}, "device": 0, "stream": {}, "grid": [1, 1, 1], "block": [32, 1, 1]}}}})",
                              i, 7 + i % 3, 103 + i * 10, i - 1, 7 + i % 3);
        } else {
          json += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": {}, )"
                              R"("ts": {}, "dur": 2, "args": {{"correlation": {}}}}})", 100 + i % 11, 101 + i * 10, i);
        }
        break;
    }
  }
  return json + R"(], "after": [{"a": 1}, {"b": 2}], "traceName": "x"})";
}

trace::Result<trace::Trace> importThrough(const std::string& path, ByteSource::PlainFileAccess access,
                                          unsigned threads, std::size_t batch_bytes) {
  auto source = ByteSource::open(path, access);
  if (!source) return source.error();
  return importKineto(**source, {.progress = {}, .threads = threads, .window = {}}, batch_bytes);
}

// How many elements of a mapped file's events array were read in guessed chunks.
std::uint64_t elementsReadInChunks(const std::string& path, unsigned threads, std::size_t batch_bytes) {
  auto source = ByteSource::open(path);
  EXPECT_TRUE(source.ok() && (*source)->mapping() != nullptr);
  if (!source.ok()) return 0;
  trace::Trace out;
  KinetoParallelParse events(path, out, threads, batch_bytes);
  ChromeTraceStream stream(**source);
  std::uint64_t in_chunks = 0;
  stream.setMappedElementsHandler([&](const MappedElements& elements) {
    auto read = events.readMappedElements(elements, {});
    if (read) in_chunks = read->count;
    return read;
  });
  EXPECT_TRUE(stream.run([&](const TraceEventText& text) { return events.add(text); }, {}).ok());
  EXPECT_TRUE(events.finish().ok());
  return in_chunks;
}

TEST(KinetoParallelParseTest, GuessedChunksGiveTheTraceThatReadingElementByElementGives) {
  test::ScratchDir dir;
  constexpr int kEvents = 400;
  const std::string path = dir.write("decoys.json", decoyEvents(kEvents));
  const auto expected = importThrough(path, ByteSource::PlainFileAccess::kReadOnly, 1, 4096);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  ASSERT_EQ(expected->import_stats.events_read, static_cast<std::uint64_t>(kEvents));
  std::uint64_t most_in_chunks = 0;
  std::uint64_t fewest_in_chunks = kEvents;
  // Chunk ends fall on every kind of decoy, at the first guess or after many right ones.
  for (std::size_t batch_bytes = 1; batch_bytes < 40000; batch_bytes = batch_bytes * 3 / 2 + 7) {
    for (unsigned threads : {1u, 2u, 4u}) {
      SCOPED_TRACE(fmt::format("{}-byte batches, {} threads", batch_bytes, threads));
      const auto chunked = importThrough(path, ByteSource::PlainFileAccess::kMapWhereAllowed, threads, batch_bytes);
      ASSERT_TRUE(chunked.ok()) << chunked.error().message;
      expectSameTrace(*expected, *chunked);
      const std::uint64_t in_chunks = elementsReadInChunks(path, threads, batch_bytes);
      most_in_chunks = std::max(most_in_chunks, in_chunks);
      fewest_in_chunks = std::min(fewest_in_chunks, in_chunks);
    }
  }
  // Some guesses held for most of the array, and some decoy was taken for a gap.
  EXPECT_GT(most_in_chunks, static_cast<std::uint64_t>(kEvents / 2));
  EXPECT_LT(fewest_in_chunks, static_cast<std::uint64_t>(kEvents / 10));
}

TEST(KinetoParallelParseTest, APlainTraceIsReadAlmostWhollyInGuessedChunks) {
  test::ScratchDir dir;
  const std::string path = dir.write("many.json", manyEvents(30000));
  for (unsigned threads : {1u, 2u}) {
    // All but what follows the last guess, at most a batch and an element.
    EXPECT_GT(elementsReadInChunks(path, threads, KinetoParallelParse::kDefaultBatchBytes), 30000u - 3000u);
  }
}

TEST(KinetoParallelParseTest, AnEventLeftOutOfAGuessedChunkIsCountedAsElementByElement) {
  // Its place is the element's byte offset either way: the stats of every way of reading agree.
  test::ScratchDir dir;
  const std::string json = decoyEvents(400, 301, kTimelessEvent);
  const std::string path = dir.write("timeless.json", json);
  const auto expected = importThrough(path, ByteSource::PlainFileAccess::kReadOnly, 1, 4096);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  const std::string reason = "'cpu_op' events without a readable \"ts\" (left out)";
  EXPECT_EQ(expected->import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(expected->import_stats.first_place.at(reason),
            fmt::format("traceEvents element at byte offset {}", json.find(kTimelessEvent)));
  for (std::size_t batch_bytes : {1u, 300u, 2000u, 9000u}) {
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(fmt::format("{}-byte batches, {} threads", batch_bytes, threads));
      const auto chunked = importThrough(path, ByteSource::PlainFileAccess::kMapWhereAllowed, threads, batch_bytes);
      ASSERT_TRUE(chunked.ok()) << chunked.error().message;
      expectSameTrace(*expected, *chunked);
    }
  }
}

TEST(KinetoParallelParseTest, ABadElementInAGuessedChunkIsReportedAsElementByElement) {
  test::ScratchDir dir;
  const std::string path = dir.write("late.json", decoyEvents(400, 301));
  const auto expected = importThrough(path, ByteSource::PlainFileAccess::kReadOnly, 1, 4096);
  ASSERT_FALSE(expected.ok());
  EXPECT_NE(expected.error().message.find("traceEvents element #301 at byte offset"), std::string::npos)
      << expected.error().message;
  for (std::size_t batch_bytes : {1u, 300u, 2000u, 9000u}) {
    for (unsigned threads : {1u, 3u}) {
      const auto chunked = importThrough(path, ByteSource::PlainFileAccess::kMapWhereAllowed, threads, batch_bytes);
      ASSERT_FALSE(chunked.ok());
      EXPECT_EQ(chunked.error().message, expected.error().message) << batch_bytes << "-byte batches, " << threads << " threads";
    }
  }
}

TEST(KinetoParallelParseTest, AValueWhoseBracketsDoNotNestIsAnErrorHoweverTheFileIsRead) {
  // A '}' closing a '[' in a value the importer keeps as text, and in one it does not read:
  // simdjson would skip either by counting brackets of both kinds alike, so the value would end
  // elsewhere than JSON says. It is an error naming the element and the value, read in guessed
  // chunks, element by element, or through a buffer.
  test::ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, )"
       R"("args": {"Input Dims": [}[64, 784], [784, 100]]}}})",
       "args.\"Input Dims\" has an unexpected value"},
      {R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, )"
       R"("args": {"Input Strides": [[1, 2}, {"a": 1]]}})",
       "args.\"Input Strides\" has an unexpected value"},
      {R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, "extra": {"a": [1}]})",
       "\"extra\" has an unexpected value"},
  };
  for (const auto& [bad_event, expected] : cases) {
    SCOPED_TRACE(bad_event);
    const std::string path = dir.write("nest.json", decoyEvents(400, 301, bad_event));
    for (const auto access : {ByteSource::PlainFileAccess::kMapWhereAllowed, ByteSource::PlainFileAccess::kReadOnly}) {
      for (std::size_t batch_bytes : {1u, 2000u, 1u << 20}) {
        const auto imported = importThrough(path, access, 2, batch_bytes);
        ASSERT_FALSE(imported.ok());
        EXPECT_NE(imported.error().message.find("traceEvents element #301 at byte offset"), std::string::npos)
            << imported.error().message;
        EXPECT_NE(imported.error().message.find(expected), std::string::npos) << imported.error().message;
      }
    }
  }
}


TEST(KinetoParallelParseTest, AStringValueFollowedByAColonIsAnErrorHoweverTheFileIsRead) {
  // '"a": "b": 1' in a member the importer does not read. simdjson, left to skip the string,
  // takes it for a key and counts on to a later '}': the element would pass, and in a guessed
  // chunk it would end at a stray '}' after it, where element by element it ends at its own.
  // It is an error naming the element, read in guessed chunks, element by element or through a
  // buffer, with and without a stray '}' after it.
  test::ScratchDir dir;
  const std::vector<std::string> cases = {
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, "extra": "b": 0})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, "extra": "b": 0}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1, )"
      R"("args": {"Module": "b": 0, "stream": 7}})",
  };
  for (const std::string& bad_event : cases) {
    SCOPED_TRACE(bad_event);
    const std::string path = dir.write("colon.json", decoyEvents(400, 301, bad_event));
    std::string first_message;
    for (const auto access : {ByteSource::PlainFileAccess::kMapWhereAllowed, ByteSource::PlainFileAccess::kReadOnly}) {
      for (std::size_t batch_bytes : {1u, 2000u, 1u << 20}) {
        for (unsigned threads : {1u, 2u}) {
          const auto imported = importThrough(path, access, threads, batch_bytes);
          ASSERT_FALSE(imported.ok());
          EXPECT_NE(imported.error().message.find("traceEvents element #301 at byte offset"), std::string::npos)
              << imported.error().message;
          if (access == ByteSource::PlainFileAccess::kReadOnly) continue;
          if (first_message.empty()) first_message = imported.error().message;
          EXPECT_EQ(imported.error().message, first_message) << batch_bytes << "-byte batches, " << threads << " threads";
        }
      }
    }
  }
}

// The stage hook (base/stage_callback.h) hears every stage of the import and the analysis once,
// in an order the stages' dependencies allow, from the two chains' threads at once.
TEST(KinetoParallelParseTest, TheStageHookHearsEveryStageOnceInAnOrderTheirInputsAllow) {
  test::ScratchDir dir;
  const std::string path = dir.write("many.json", manyEvents(30000));
  std::mutex mutex;
  std::vector<std::string> stages;
  const StageCallback heard = [&](std::string_view stage) {
    const std::lock_guard lock(mutex);
    stages.emplace_back(stage);
  };
  auto imported = importTrace(path, {.progress = {}, .threads = 2, .window = {}}, heard);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  const RunAnalysis run = analyzeTrace(std::move(imported).value(), path, {.gpu = {}, .threads = 2, .window = {}}, heard);
  EXPECT_EQ(run.summary.import_stats.events_read, 30000u);
  const std::vector<std::string> expected = {"events parsed",     "sorted by time",         "ranges normalised",
                                             "correlated",        "contents and steps",     "kernel verdicts proven",
                                             "kernel tables",     "memory",                 "host side",
                                             "AMP projection",    "recommendations"};
  ASSERT_EQ(stages.size(), expected.size());
  std::vector<std::string> sorted_heard = stages;
  std::vector<std::string> sorted_expected = expected;
  std::sort(sorted_heard.begin(), sorted_heard.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  EXPECT_EQ(sorted_heard, sorted_expected);
  const auto at = [&](std::string_view stage) {
    return std::find(stages.begin(), stages.end(), stage) - stages.begin();
  };
  // The import's stages, then the correlation, the contents, both chains, the recommendations.
  for (std::size_t i = 0; i + 1 < 5; ++i) EXPECT_LT(at(expected[i]), at(expected[i + 1])) << expected[i];
  EXPECT_LT(at("contents and steps"), at("kernel verdicts proven"));
  EXPECT_LT(at("contents and steps"), at("host side"));
  EXPECT_LT(at("kernel verdicts proven"), at("kernel tables"));
  EXPECT_LT(at("kernel tables"), at("memory"));
  EXPECT_LT(at("kernel verdicts proven"), at("AMP projection"));
  EXPECT_LT(at("host side"), at("AMP projection"));
  EXPECT_EQ(stages.back(), "recommendations");
}

}  // namespace
}  // namespace ampscope::analyzer::import
