// Profiled programs killed with SIGKILL at many moments, as a scheduler, the OOM killer or a user's
// kill -9 would: every profile left behind must open, and hold the training steps it committed in
// order with none missing in between (ranges are committed as they close, in order per thread,
// so what a kill loses is a tail, never a step in the middle). `train --profile` and `record` of
// a training run are both killed; the counts are printed for the record.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope {
namespace {

// Kill points per program; the moments are random after the profile exists (a fixed seed, so a
// failure can be replayed with the same delays).
constexpr int kKillPoints = 10;
constexpr std::uint32_t kSeed = 20261126;
constexpr auto kLongestDelay = std::chrono::milliseconds(1200);
constexpr auto kProfileWait = std::chrono::seconds(60);

// A training run far longer than any kill delay: a small MLP on synthetic data.
std::vector<std::string> trainArguments() {
  return {"train", "--device", "cpu", "--data", "synthetic", "--model", "mlp", "--hidden", "32",
          "--batch", "16", "--steps", "1000000", "--epochs", "10000", "--workers", "1"};
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (std::freopen(log.c_str(), "w", stdout) == nullptr || std::freopen(log.c_str(), "a", stderr) == nullptr) _exit(126);
    std::vector<char*> args;
    for (const std::string& word : argv) args.push_back(const_cast<char*>(word.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

bool waitForFile(const std::string& path, pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kProfileWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(path)) return true;
    if (waitpid(pid, nullptr, WNOHANG) == pid) return false;  // it ended before writing one
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The first child of pid (`record` runs the program as its child).
pid_t childOf(pid_t pid) {
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  pid_t child = -1;
  children >> child;
  return child;
}

struct Counts {
  int tried = 0;
  int left = 0;      // a profile file existed after the kill
  int readable = 0;  // it opened
  std::size_t fewest_steps = SIZE_MAX;  // steps the readable profiles kept
  std::size_t most_steps = 0;
};

void print(const char* what, const Counts& c) {
  std::printf("%s: %d kill points, %d profiles left, %d readable, keeping %zu to %zu steps\n", what, c.tried, c.left,
              c.readable, c.readable > 0 ? c.fewest_steps : 0, c.most_steps);
}

// The numbers of the profile's "step N" ranges, sorted.
std::vector<long> stepNumbers(const trace::Trace& t) {
  std::vector<long> steps;
  for (const trace::Range& r : t.ranges) {
    const std::string_view name = t.str(r.name);
    if (!name.starts_with("step ")) continue;
    long n = -1;
    std::from_chars(name.data() + 5, name.data() + name.size(), n);
    steps.push_back(n);
    EXPECT_LE(r.start_ns, r.end_ns) << name;
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

void checkProfile(const std::string& profile, const std::string& log, Counts& counts) {
  if (!std::filesystem::exists(profile)) return;
  ++counts.left;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << profile << ": " << t.error().message << "\n" << test::readFile(log);
  ++counts.readable;
  const std::vector<long> steps = stepNumbers(*t);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ASSERT_EQ(steps[i], static_cast<long>(i)) << profile << ": steps 0.." << steps.size() - 1 << " with a gap";
  }
  counts.fewest_steps = std::min(counts.fewest_steps, steps.size());
  counts.most_steps = std::max(counts.most_steps, steps.size());
}

TEST(KillStressTest, TrainProfileKilledAtAnyMomentLeavesAReadableProfileWithItsStepsInOrder) {
  test::ScratchDir dir;
  std::mt19937 random(kSeed);
  std::uniform_int_distribution<int> delay_ms(0, static_cast<int>(kLongestDelay.count()));
  Counts counts;
  for (int i = 0; i < kKillPoints; ++i) {
    const std::string profile = dir.file("train" + std::to_string(i) + ".sqlite");
    const std::string log = dir.file("train" + std::to_string(i) + ".log");
    std::vector<std::string> argv{AMPSCOPE_BINARY};
    for (const std::string& word : trainArguments()) argv.push_back(word);
    argv.insert(argv.end(), {"--profile", profile});
    const pid_t pid = spawn(argv, log);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(waitForFile(profile, pid)) << test::readFile(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    ++counts.tried;
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << test::readFile(log);
    checkProfile(profile, log, counts);
  }
  print("train --profile", counts);
  EXPECT_EQ(counts.left, counts.tried);
  EXPECT_EQ(counts.readable, counts.left);
}

TEST(KillStressTest, RecordedProgramKilledAtAnyMomentLeavesAReadableProfileWithItsStepsInOrder) {
  test::ScratchDir dir;
  std::mt19937 random(kSeed + 1);
  std::uniform_int_distribution<int> delay_ms(0, static_cast<int>(kLongestDelay.count()));
  Counts counts;
  for (int i = 0; i < kKillPoints; ++i) {
    const std::string profile = dir.file("record" + std::to_string(i) + ".sqlite");
    const std::string log = dir.file("record" + std::to_string(i) + ".log");
    // `record` runs the trainer (no --profile: its NVTX ranges reach the injected collector).
    std::vector<std::string> argv{AMPSCOPE_BINARY, "record", "-o", profile, "--", AMPSCOPE_BINARY};
    for (const std::string& word : trainArguments()) argv.push_back(word);
    const pid_t pid = spawn(argv, log);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(waitForFile(profile, pid)) << test::readFile(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    const pid_t program = childOf(pid);
    ASSERT_GT(program, 0) << "record's program is not running\n" << test::readFile(log);
    ++counts.tried;
    kill(program, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    // record passes the program's death on as a shell does.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGKILL) << test::readFile(log);
    checkProfile(profile, log, counts);
  }
  print("record", counts);
  EXPECT_EQ(counts.left, counts.tried);
  EXPECT_EQ(counts.readable, counts.left);
}

}  // namespace
}  // namespace ampscope
