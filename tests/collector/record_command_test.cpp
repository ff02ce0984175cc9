// Runs the real `ampscope record` on small NVTX programs that know nothing of ampscope, as a
// user would, and reads the profiles they leave.

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope {
namespace {

struct RecordRun {
  int exit_status = -1;
  std::string output;  // stdout and stderr
};

RecordRun record(const std::string& profile, const std::string& program, const std::string& args, const std::string& dir) {
  const std::string log = dir + "/record.log";
  const std::string command = std::string(AMPSCOPE_BINARY) + " record -o " + profile + " -- " + program + " " + args +
                              " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  RecordRun run;
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.output = test::readFile(log);
  return run;
}

std::size_t countRanges(const trace::Trace& t, std::string_view prefix) {
  std::size_t n = 0;
  for (const trace::Range& r : t.ranges) n += t.str(r.name).substr(0, prefix.size()) == prefix ? 1 : 0;
  return n;
}

TEST(RecordCommandTest, RecordsEveryRangeOfAnNvtxProgramAndPassesItsExitStatusThrough) {
  test::ScratchDir dir;
  const std::string profile = dir.file("ranges.sqlite");
  const RecordRun run = record(profile, NVTX_RANGES_PROGRAM, "7", dir.file(""));
  EXPECT_EQ(run.exit_status, 7) << run.output;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message << "\n" << run.output;
  // main + 3 workers x 100 x (item + inner) + registered + mark + start/end.
  EXPECT_EQ(t->ranges.size(), 1u + 600u + 3u) << run.output;
  EXPECT_EQ(countRanges(*t, "worker "), 300u);
  EXPECT_EQ(countRanges(*t, "registered range"), 1u);
  EXPECT_EQ(t->threads.size(), 4u);
  EXPECT_TRUE(t->import_stats.lost.empty());
  // No CUDA in the program: the user is told GPU activity is missing and why.
  EXPECT_NE(run.output.find("no GPU activity could be recorded"), std::string::npos) << run.output;
}

class RecordCrashTest : public ::testing::TestWithParam<std::pair<const char*, int>> {};

TEST_P(RecordCrashTest, KeepsEveryRangeClosedBeforeTheProgramDied) {
  const auto& [how, signal] = GetParam();
  test::ScratchDir dir;
  const std::string profile = dir.file("crash.sqlite");
  const RecordRun run = record(profile, NVTX_CRASH_PROGRAM, how, dir.file(""));
  EXPECT_EQ(run.exit_status, 128 + signal) << run.output;
  EXPECT_NE(run.output.find("killed by signal"), std::string::npos) << run.output;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message << "\n" << run.output;
  EXPECT_EQ(countRanges(*t, "closed "), 50u) << run.output;
  EXPECT_EQ(countRanges(*t, "open when"), 0u);
}

INSTANTIATE_TEST_SUITE_P(HowItDied, RecordCrashTest,
                         ::testing::Values(std::pair{"segv", SIGSEGV}, std::pair{"abort", SIGABRT},
                                           std::pair{"kill", SIGKILL}),
                         [](const auto& test_info) { return std::string(test_info.param.first); });

TEST(RecordCommandTest, SaysSoWhenTheProgramCannotBeRun) {
  test::ScratchDir dir;
  const RecordRun run = record(dir.file("none.sqlite"), "/nonexistent/program", "", dir.file(""));
  EXPECT_EQ(run.exit_status, 127);
  EXPECT_NE(run.output.find("cannot run '/nonexistent/program'"), std::string::npos) << run.output;
}

TEST(RecordCommandTest, LeavesAnEmptyProfileAndSaysWhyForAProgramWithoutNvtxOrCuda) {
  test::ScratchDir dir;
  const std::string profile = dir.file("true.sqlite");
  const RecordRun run = record(profile, "true", "", dir.file(""));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  EXPECT_NE(run.output.find("made no NVTX or CUDA calls"), std::string::npos) << run.output;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->ranges.empty());
}

// A training script started by a shell script: the shell makes no NVTX or CUDA call, its child
// does, and the child's recording becomes the profile asked for.
TEST(RecordCommandTest, RecordsTheProgramAShellScriptStarts) {
  test::ScratchDir dir;
  const std::string profile = dir.file("script.sqlite");
  const RecordRun run = record(profile, "/bin/sh", std::string("-c '") + NVTX_RANGES_PROGRAM + " 3; exit $?'", dir.file(""));
  EXPECT_EQ(run.exit_status, 3) << run.output;
  EXPECT_NE(run.output.find("the command's own process made no NVTX or CUDA calls; its process"), std::string::npos)
      << run.output;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message << "\n" << run.output;
  EXPECT_EQ(t->ranges.size(), 604u) << run.output;
  EXPECT_EQ(countRanges(*t, "worker "), 300u);
}

// Two processes of the tree record at once (as a launcher's ranks would): each gets a profile
// of its own, named by its pid, and neither overwrites the other.
TEST(RecordCommandTest, GivesEveryRecordingProcessOfTheTreeItsOwnProfile) {
  test::ScratchDir dir;
  const std::string profile = dir.file("ranks.sqlite");
  const std::string program = NVTX_RANGES_PROGRAM;
  const RecordRun run = record(profile, "/bin/sh", "-c '" + program + " 0 & " + program + " 0; wait'", dir.file(""));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  EXPECT_FALSE(std::filesystem::exists(profile)) << run.output;
  EXPECT_NE(run.output.find("2 of its processes did"), std::string::npos) << run.output;
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file(""))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("ranks.", 0) == 0) written.push_back(entry.path().string());
  }
  ASSERT_EQ(written.size(), 2u) << run.output;
  for (const std::string& path : written) {
    EXPECT_NE(run.output.find(path), std::string::npos) << run.output;  // listed for the user
    auto t = trace::db::readProfile(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->ranges.size(), 604u) << path;
    EXPECT_TRUE(t->import_stats.lost.empty()) << path;
  }
}

// A file that only looks like a process's profile (a user's run.20240101.sqlite, or one left by
// an earlier recording) is neither deleted nor taken for this run's.
TEST(RecordCommandTest, LeavesOlderFilesShapedLikeProcessProfilesAlone) {
  test::ScratchDir dir;
  const std::string profile = dir.file("again.sqlite");
  const std::string older = dir.write("again.4242.sqlite", "the user's own file");
  std::filesystem::last_write_time(older, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  const RecordRun run = record(profile, "/bin/sh", std::string("-c '") + NVTX_RANGES_PROGRAM + " 0; exit $?'", dir.file(""));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(test::readFile(older), "the user's own file");
  EXPECT_EQ(run.output.find("again.4242"), std::string::npos) << run.output;
  auto t = trace::db::readProfile(profile);  // the script's one recording process, as asked
  ASSERT_TRUE(t.ok()) << t.error().message << "\n" << run.output;
  EXPECT_EQ(t->ranges.size(), 604u);
}

// The command's own process ends while one it started in the background still records: that
// profile is named, not read, moved or folded under the running process.
TEST(RecordCommandTest, NamesAProfileStillBeingWrittenWithoutTouchingIt) {
  test::ScratchDir dir;
  const std::string profile = dir.file("bg.sqlite");
  // The crash program records 50 ranges, sleeps 500 ms and kills itself.
  const RecordRun run =
      record(profile, "/bin/sh", std::string("-c '") + NVTX_CRASH_PROGRAM + " kill & sleep 0.2; exit 0'", dir.file(""));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  EXPECT_NE(run.output.find("is still running"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("made no NVTX or CUDA calls, so there was nothing to record"), std::string::npos)
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(profile)) << run.output;  // no empty profile in its place
  std::this_thread::sleep_for(std::chrono::seconds(1));  // let it end
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file(""))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("bg.", 0) == 0 && name.ends_with(".sqlite") && name != "bg.sqlite") written.push_back(entry.path().string());
  }
  ASSERT_EQ(written.size(), 1u) << run.output;
  auto t = trace::db::readProfile(written[0]);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(countRanges(*t, "closed "), 50u);
}

TEST(RecordCommandTest, RefusesAnOutputItCannotWriteBeforeRunningTheProgram) {
  test::ScratchDir dir;
  const RecordRun run = record("/nonexistent-folder/run.sqlite", "touch", dir.file("ran"), dir.file(""));
  EXPECT_EQ(run.exit_status, 2) << run.output;
  EXPECT_NE(run.output.find("/nonexistent-folder"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("ran")));  // the program never started
  const RecordRun into_folder = record(dir.file(""), "touch", dir.file("ran"), dir.file(""));
  EXPECT_EQ(into_folder.exit_status, 2) << into_folder.output;
  EXPECT_NE(into_folder.output.find("is a directory"), std::string::npos) << into_folder.output;
}

TEST(RecordCommandTest, RefusesAnUnknownMetricsValueBeforeRunningTheProgram) {
  test::ScratchDir dir;
  const std::string command = std::string(AMPSCOPE_BINARY) + " record -o " + dir.file("p.sqlite") +
                              " --metrics tensor:per_kernel -- touch " + dir.file("ran") + " > " + dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string log = test::readFile(dir.file("log"));
  EXPECT_NE(log.find("--metrics: unknown value 'tensor:per_kernel'"), std::string::npos) << log;
  EXPECT_NE(log.find("tensor:per-kernel"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir.file("ran")));
}

// An NVTX program never initialises CUDA: its ranges are recorded, and record says why no counter was.
TEST(RecordCommandTest, MetricsOfAProgramWithoutCudaLeaveItsRangesAndSayWhyNoCounterWasRecorded) {
  test::ScratchDir dir;
  const std::string profile = dir.file("metrics.sqlite");
  const std::string command = std::string(AMPSCOPE_BINARY) + " record -o " + profile + " --metrics tensor:per-kernel -- " +
                              NVTX_RANGES_PROGRAM + " 0 > " + dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = test::readFile(dir.file("log"));
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("kernels run one at a time"), std::string::npos) << log;
  EXPECT_NE(log.find("no hardware counters were recorded"), std::string::npos) << log;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->ranges.size(), 604u);
}

TEST(RecordCommandTest, RefusesAnUnknownKind) {
  test::ScratchDir dir;
  const std::string command = std::string(AMPSCOPE_BINARY) + " record --kinds kernel,bogus -- true > " +
                              dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(test::readFile(dir.file("log")).find("unknown kind 'bogus'"), std::string::npos);
}

}  // namespace
}  // namespace ampscope
