// --window: the part of a recording to read. Nsight Systems exports apply it in their queries;
// every other format is cut after reading; both keep what overlaps the window and say so.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>

#include "../test_support.h"
#include "analyzer/core/read_window.h"
#include "analyzer/import/read_window_filter.h"
#include "analyzer/import/trace_importer.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {
namespace {

TEST(ReadWindowTest, ReadsSecondsAndSteps) {
  auto seconds = parseReadWindow("2.5:4");
  ASSERT_TRUE(seconds) << seconds.error().message;
  ASSERT_TRUE(std::holds_alternative<SecondsWindow>(*seconds));
  EXPECT_DOUBLE_EQ(std::get<SecondsWindow>(*seconds).from_s, 2.5);
  EXPECT_DOUBLE_EQ(std::get<SecondsWindow>(*seconds).to_s, 4.0);
  EXPECT_EQ(readWindowText(*seconds), "2.5:4");

  auto steps = parseReadWindow("step:3-5");
  ASSERT_TRUE(steps) << steps.error().message;
  ASSERT_TRUE(std::holds_alternative<StepWindow>(*steps));
  EXPECT_EQ(std::get<StepWindow>(*steps).first, 3);
  EXPECT_EQ(std::get<StepWindow>(*steps).last, 5);
  EXPECT_EQ(readWindowText(*steps), "step:3-5");
  auto one = parseReadWindow("step:7");
  ASSERT_TRUE(one);
  EXPECT_EQ(std::get<StepWindow>(*one).first, 7);
  EXPECT_EQ(std::get<StepWindow>(*one).last, 7);
}

TEST(ReadWindowTest, RefusesWhatIsNoWindowSayingWhatItExpects) {
  for (const char* text : {"", "4", "4:2", "2:2", "-1:2", "a:b", "2:nan", "step:", "step:5-3", "step:x", "step:-1-2",
                           "1:2:3"}) {
    auto parsed = parseReadWindow(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().message.find("expected START:END"), std::string::npos) << parsed.error().message;
  }
}

// The fixture export (tests/data/nsys_small.sql) with three step ranges added on the main thread.
class NsysWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = scratch_.file("small.sqlite");
    auto db = trace::db::SqliteDatabase::open(path_, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->execute(test::readFile(test::testData("nsys_small.sql"))));
    ASSERT_TRUE(db->execute(
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES "
        "(1000000000, 1000300000, 59, 'step 1', 281891336904945), "
        "(1000300000, 1000600000, 59, 'step 2', 281891336904945), "
        "(1000600000, 1000900000, 59, 'step 3', 281891336904945);"));
  }

  trace::Trace read(const std::string& window) {
    auto parsed = parseReadWindow(window);
    EXPECT_TRUE(parsed) << parsed.error().message;
    auto t = importTrace(path_, {.progress = {}, .threads = 2, .window = *parsed});
    EXPECT_TRUE(t) << t.error().message;
    return t ? std::move(t).value() : trace::Trace{};
  }

  test::ScratchDir scratch_;
  std::string path_;
};

TEST_F(NsysWindowTest, SecondsOnTheExportsClockKeepWhatOverlapsThem) {
  const trace::Trace whole = importTrace(path_).value();
  // 1.00005 s to 1.0002 s of the session: inside the forward range.
  const trace::Trace t = read("1.00005:1.0002");
  ASSERT_TRUE(t.read_window);
  EXPECT_EQ(t.read_window->start_ns, 1'000'050'000);
  EXPECT_EQ(t.read_window->end_ns, 1'000'200'000);
  EXPECT_EQ(t.read_window->asked, "1.00005:1.0002");
  ASSERT_FALSE(t.kernels.empty());
  EXPECT_LT(t.kernels.size(), whole.kernels.size());
  for (const trace::Kernel& k : t.kernels) {
    EXPECT_LT(k.start_ns, 1'000'200'000);
    EXPECT_GE(k.end_ns, 1'000'050'000);
  }
  for (const trace::LaunchCall& l : t.launches) {
    EXPECT_LT(l.start_ns, 1'000'200'000);
    EXPECT_GE(l.end_ns, 1'000'050'000);
  }
  // Ranges that enclose the window are kept whole; the mark at 1.0000005 s is before it; the
  // domain named before it still names its ranges.
  bool train_step = false;
  for (const trace::Range& r : t.ranges) {
    EXPECT_NE(t.str(r.name), "step 0");
    train_step = train_step || t.str(r.name) == "train_step";
  }
  EXPECT_TRUE(train_step);
  // Every record kept overlaps the window, and every record of the whole trace that overlaps
  // it is kept.
  std::size_t overlapping = 0;
  for (const trace::Kernel& k : whole.kernels) overlapping += k.start_ns < 1'000'200'000 && k.end_ns >= 1'000'050'000;
  EXPECT_EQ(t.kernels.size(), overlapping);
}

TEST_F(NsysWindowTest, ReadingInTheWindowKeepsWhatReadingWholeAndCuttingKeeps) {
  // A range that ends before it starts (read as never ended), a mark, a range ending exactly at
  // the window's start, and a range of no length at it.
  auto db = trace::db::SqliteDatabase::open(path_, trace::db::SqliteDatabase::Mode::kCreate);
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES "
      "(999900000, 5, 59, 'backwards', 281891336904945), "
      "(1000100000, NULL, 34, 'mark inside', 281891336904945), "
      "(1000000000, 1000050000, 59, 'ends at the start', 281891336904945), "
      "(1000050000, 1000050000, 59, 'no length at the start', 281891336904945);"));
  const trace::Trace windowed = read("1.00005:1.0002");
  trace::Trace cut = importTrace(path_).value();
  keepWindow(cut, *windowed.read_window);
  std::vector<std::string> kept;
  std::vector<std::string> expected;
  for (const trace::Range& r : windowed.ranges) kept.push_back(std::string(windowed.str(r.name)));
  for (const trace::Range& r : cut.ranges) expected.push_back(std::string(cut.str(r.name)));
  EXPECT_EQ(kept, expected);
  EXPECT_NE(std::find(kept.begin(), kept.end(), "backwards"), kept.end());
  EXPECT_NE(std::find(kept.begin(), kept.end(), "mark inside"), kept.end());
  EXPECT_NE(std::find(kept.begin(), kept.end(), "no length at the start"), kept.end());
  EXPECT_EQ(std::find(kept.begin(), kept.end(), "ends at the start"), kept.end());
  EXPECT_EQ(windowed.kernels, cut.kernels);
  EXPECT_EQ(windowed.launches.size(), cut.launches.size());
  EXPECT_EQ(windowed.memory_ops, cut.memory_ops);
  EXPECT_EQ(windowed.synchronizations, cut.synchronizations);
}

TEST_F(NsysWindowTest, StepsAreFoundByTheirRanges) {
  const trace::Trace t = read("step:2-3");
  ASSERT_TRUE(t.read_window);
  EXPECT_EQ(t.read_window->start_ns, 1'000'300'000);
  EXPECT_EQ(t.read_window->end_ns, 1'000'900'000);
  for (const trace::Range& r : t.ranges) EXPECT_NE(t.str(r.name), "step 1") << "step 1 ends where step 2 starts";
}

TEST_F(NsysWindowTest, AWindowOfNothingOrOfStepsNotThereIsAnErrorThatSaysWhatThereIs) {
  auto empty = importTrace(path_, {.progress = {}, .threads = 2, .window = parseReadWindow("5:6").value()});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no records in it; the recording runs from 0.999 s to 1.001 s"),
            std::string::npos)
      << empty.error().message;

  EXPECT_NE(empty.error().message.find(path_), std::string::npos);
  auto steps = importTrace(path_, {.progress = {}, .threads = 2, .window = parseReadWindow("step:7-9").value()});
  ASSERT_FALSE(steps);
  EXPECT_NE(steps.error().message.find("numbered 1 to 3"), std::string::npos) << steps.error().message;
}

TEST(KinetoWindowTest, AnotherFormatIsCutAfterReading) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const trace::Trace whole = importTrace(path).value();
  auto t = importTrace(path, {.progress = {}, .threads = 2, .window = parseReadWindow("0.01:0.02").value()});
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_TRUE(t->read_window);
  // Seconds count from the first record where the trace does not say when recording began.
  std::int64_t first = whole.kernels.front().start_ns;
  for (const trace::LaunchCall& l : whole.launches) first = std::min(first, l.start_ns);
  for (const trace::Range& r : whole.ranges) first = std::min(first, r.start_ns);
  EXPECT_EQ(t->read_window->start_ns, first + 10'000'000);
  EXPECT_EQ(t->read_window->end_ns, first + 20'000'000);
  ASSERT_FALSE(t->kernels.empty());
  EXPECT_LT(t->kernels.size(), whole.kernels.size());
  for (const trace::Kernel& k : t->kernels) {
    EXPECT_LT(k.start_ns, t->read_window->end_ns);
    EXPECT_GE(k.end_ns, t->read_window->start_ns);
  }
  EXPECT_GT(t->import_stats.skipped.at("records outside --window 0.01:0.02 (left out)"), 0u);
  // A clock that counts from the epoch plus a large END: everything from START on, no overflow.
  auto all = importTrace(path, {.progress = {}, .threads = 2, .window = parseReadWindow("0:1e10").value()});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->kernels.size(), whole.kernels.size());
}

}  // namespace
}  // namespace ampscope::analyzer::import
