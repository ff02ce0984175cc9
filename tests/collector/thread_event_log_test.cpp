#include "collector/thread_event_log.h"

#include "collector/nvtx/nvtx_registry.h"

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace ampscope::collector {
namespace {

NvtxRecord recordAt(std::uint64_t clock_ticks, NvtxRecordKind kind = NvtxRecordKind::kPush) {
  NvtxRecord record;
  record.clock_ticks = clock_ticks;
  record.kind = kind;
  return record;
}

TEST(ThreadEventLogTest, DrainsRecordsWithTheirTextInAppendOrder) {
  ThreadEventLog log(1, 2);
  log.append(recordAt(10), "step 0");
  log.append(recordAt(20, NvtxRecordKind::kPop));
  log.append(recordAt(30), "a somewhat longer text that is not a multiple of eight");
  std::vector<std::pair<std::uint64_t, std::string>> seen;
  EXPECT_EQ(log.drain([&](const NvtxRecord& r, std::string_view text) { seen.emplace_back(r.clock_ticks, text); }), 3u);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::pair<std::uint64_t, std::string>{10, "step 0"}));
  EXPECT_EQ(seen[1], (std::pair<std::uint64_t, std::string>{20, ""}));
  EXPECT_EQ(seen[2].second, "a somewhat longer text that is not a multiple of eight");
  // A drained log gives nothing more until something is appended.
  EXPECT_EQ(log.drain([](const NvtxRecord&, std::string_view) {}), 0u);
  log.append(recordAt(40));
  EXPECT_EQ(log.drain([](const NvtxRecord&, std::string_view) {}), 1u);
}

TEST(ThreadEventLogTest, CarriesOnAcrossChunksWithoutLosingOrReorderingRecords) {
  ThreadEventLog log(1, 2);
  const std::string text(1000, 'x');
  const int count = static_cast<int>(3 * ThreadEventLog::kChunkBytes / (sizeof(NvtxRecord) + text.size())) + 7;
  for (int i = 0; i < count; ++i) log.append(recordAt(static_cast<std::uint64_t>(i)), text);
  std::uint64_t expected = 0;
  log.drain([&](const NvtxRecord& r, std::string_view t) {
    EXPECT_EQ(r.clock_ticks, expected++);
    EXPECT_EQ(t.size(), text.size());
  });
  EXPECT_EQ(expected, static_cast<std::uint64_t>(count));
}

TEST(ThreadEventLogTest, CutsTextLongerThanItsLimitInsteadOfOverflowing) {
  ThreadEventLog log(1, 2);
  log.append(recordAt(1), std::string(ThreadEventLog::kChunkBytes * 2, 'y'));
  std::size_t size = 0;
  log.drain([&](const NvtxRecord&, std::string_view t) { size = t.size(); });
  EXPECT_EQ(size, ThreadEventLog::kMaxTextBytes);
}

TEST(ThreadEventLogTest, KeepsEveryFieldOfARecordThroughThePackedForm) {
  ThreadEventLog log(1, 2);
  static const RegisteredString kText{3, "registered"};
  NvtxRecord full;
  full.clock_ticks = ~std::uint64_t{4};  // every bit of the field is kept
  full.kind = NvtxRecordKind::kStart;
  full.range_id = 1ULL << 40;
  full.payload_type = NvtxPayloadType::kDouble;
  full.payload_bits = 0x400921FB54442D18ULL;  // pi
  full.registered = &kText;
  full.domain = 65535;
  full.category = 4000000000u;
  log.append(full, "and text");
  log.append(recordAt(7, NvtxRecordKind::kPop));
  std::vector<NvtxRecord> seen;
  std::vector<std::string> texts;
  log.drain([&](const NvtxRecord& r, std::string_view t) {
    seen.push_back(r);
    texts.emplace_back(t);
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].clock_ticks, ~std::uint64_t{4});
  EXPECT_EQ(seen[0].kind, NvtxRecordKind::kStart);
  EXPECT_EQ(seen[0].range_id, 1ULL << 40);
  EXPECT_EQ(seen[0].payload_type, NvtxPayloadType::kDouble);
  EXPECT_EQ(seen[0].payload_bits, 0x400921FB54442D18ULL);
  EXPECT_EQ(seen[0].registered, &kText);
  EXPECT_EQ(seen[0].domain, 65535u);
  EXPECT_EQ(seen[0].category, 4000000000u);
  EXPECT_EQ(texts[0], "and text");
  EXPECT_EQ(seen[1].clock_ticks, 7u);
  EXPECT_EQ(seen[1].kind, NvtxRecordKind::kPop);
  EXPECT_EQ(seen[1].registered, nullptr);
  EXPECT_EQ(texts[1], "");
}

TEST(ThreadEventLogTest, AReaderDrainingWhileTheOwnerAppendsSeesEveryRecordOnce) {
  ThreadEventLog log(1, 2);
  constexpr int kRecords = 200000;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (int i = 0; i < kRecords; ++i) log.append(recordAt(static_cast<std::uint64_t>(i)), i % 3 == 0 ? "text" : "");
    done.store(true);
  });
  std::uint64_t next = 0;
  bool in_order = true;
  const auto visit = [&](const NvtxRecord& r, std::string_view) { in_order = in_order && r.clock_ticks == next++; };
  while (!done.load()) log.drain(visit);
  producer.join();
  log.drain(visit);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(next, static_cast<std::uint64_t>(kRecords));
}

// Appends until the address space runs out, then frees it and appends more; drains and exits 0
// when every record was either drained or counted as dropped, some were dropped, and records
// after a drop came behind a gap marker. Run in a child process, with a limit.
[[noreturn]] void appendPastTheMemoryLimitAndRecover() {
  ThreadEventLog log(1, 2);
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  const auto limit = static_cast<rlim_t>(pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) + (8u << 20));
  const rlimit tight{limit, RLIM_INFINITY};
  if (setrlimit(RLIMIT_AS, &tight) != 0) _exit(3);
  // Records of two sizes, so after a larger one is dropped a smaller one would still fit the
  // full chunk's tail: it must not be written there.
  const std::string text(100, 't');
  constexpr std::uint64_t kRecords = 600'000;  // about 40 MB logged: past the 8 MiB left
  std::uint64_t tick = 0;
  for (; tick < kRecords; ++tick) log.append(recordAt(tick), tick % 2 == 0 ? std::string_view(text) : std::string_view());
  const rlimit free{RLIM_INFINITY, RLIM_INFINITY};
  if (setrlimit(RLIMIT_AS, &free) != 0) _exit(3);
  for (; tick < kRecords + 1000; ++tick) log.append(recordAt(tick));
  std::uint64_t drained = 0, gaps = 0;
  std::uint64_t next = 0;  // the tick of the next record if none was dropped
  bool after_gap = false, hole_without_gap = false;
  log.drain([&](const NvtxRecord& r, std::string_view) {
    if (r.kind == NvtxRecordKind::kGap) {
      after_gap = true;
      ++gaps;
      return;
    }
    if (r.clock_ticks != next && !after_gap) hole_without_gap = true;
    next = r.clock_ticks + 1;
    after_gap = false;
    ++drained;
  });
  const std::uint64_t dropped = log.takeDropped();
  if (dropped == 0) _exit(4);
  if (drained + dropped != tick) _exit(5);
  if (log.takeDropped() != 0) _exit(6);  // each drop is reported once
  if (hole_without_gap) _exit(7);
  if (gaps == 0 || next != tick) _exit(8);  // it recovered, and kept every record after that
  _exit(0);
}

TEST(ThreadEventLogDeathTest, OutOfMemoryDropsAndCountsRecordsAndMarksWhereTheyWereMissing) {
  EXPECT_EXIT(appendPastTheMemoryLimitAndRecover(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ampscope::collector
