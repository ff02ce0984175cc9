// base/task_queue.h and base/parallel_parts.h: every item is worked on once, whatever the number
// of workers, and an exception reaches the caller only once every worker has ended.

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/parallel_parts.h"
#include "base/task_queue.h"

namespace ampscope {
namespace {

TEST(RunTasksTest, EveryTaskRunsOnceOnTheWorkersGivenTheCallerBeingTheFirst) {
  for (std::size_t workers : {1u, 2u, 3u, 16u}) {
    constexpr std::size_t kTasks = 1000;
    std::vector<std::atomic<int>> runs(kTasks);
    std::vector<std::atomic<int>> by_worker(workers);
    std::atomic<int> on_caller{0};
    const std::thread::id caller = std::this_thread::get_id();
    runTasks(kTasks, workers, [&](std::size_t task, std::size_t worker) {
      ++runs[task];
      ASSERT_LT(worker, workers);
      ++by_worker[worker];
      if (worker == 0) EXPECT_EQ(std::this_thread::get_id(), caller);
      if (std::this_thread::get_id() == caller) ++on_caller;
    });
    for (std::size_t i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i << ", " << workers << " workers";
    EXPECT_EQ(on_caller.load(), by_worker[0].load());
  }
}

TEST(RunTasksTest, NoTaskNoWorkAndNoMoreWorkersThanTasks) {
  runTasks(0, 4, [](std::size_t, std::size_t) { FAIL() << "no task to run"; });
  std::atomic<std::size_t> highest_worker{0};
  runTasks(2, 8, [&](std::size_t, std::size_t worker) {
    std::size_t seen = highest_worker.load();
    while (worker > seen && !highest_worker.compare_exchange_weak(seen, worker)) {
    }
  });
  EXPECT_LT(highest_worker.load(), 2u);
}

TEST(RunTasksTest, EveryOtherTaskRunsAndTheLowestNumberedTasksExceptionReachesTheCaller) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> ended{0};
    try {
      runTasks(200, 3, [&](std::size_t task, std::size_t) {
        if (task == 150) throw std::logic_error("task 150");
        if (task == 7) throw std::runtime_error("task 7");
        ++ended;
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "task 7");
    }
    EXPECT_EQ(ended.load(), 198);  // and nothing still running: every worker has ended
  }
}

TEST(ForEachPartTest, PartsAreContiguousCoverEveryItemOnceAndAreAsEvenAsCanBe) {
  for (std::size_t parts : {1u, 2u, 3u, 7u}) {
    constexpr std::size_t kItems = 1001;
    std::vector<std::atomic<int>> seen(kItems);
    std::vector<std::pair<std::size_t, std::size_t>> bounds(parts);
    forEachPart(kItems, parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
      bounds[part] = {begin, end};
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    for (std::size_t i = 0; i < kItems; ++i) ASSERT_EQ(seen[i].load(), 1);
    EXPECT_EQ(bounds.front().first, 0u);
    EXPECT_EQ(bounds.back().second, kItems);
    for (std::size_t p = 0; p < parts; ++p) {
      if (p > 0) EXPECT_EQ(bounds[p].first, bounds[p - 1].second);
      const std::size_t size = bounds[p].second - bounds[p].first;
      EXPECT_GE(size, kItems / parts);
      EXPECT_LE(size, kItems / parts + 1);
    }
  }
}

TEST(ForEachPartTest, TheFirstPartsExceptionIsRethrownOnceAllHaveEnded) {
  std::atomic<int> ended{0};
  try {
    forEachPart(4, 4, [&](std::size_t part, std::size_t, std::size_t) {
      if (part == 1) throw std::runtime_error("part 1");
      if (part == 3) throw std::logic_error("part 3");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ++ended;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 1");
  }
  EXPECT_EQ(ended.load(), 2);
}

TEST(PartsForTest, NoPartSmallerThanAskedAndAtLeastOne) {
  EXPECT_EQ(partsFor(0, 8, 100), 1u);
  EXPECT_EQ(partsFor(250, 8, 100), 2u);
  EXPECT_EQ(partsFor(1'000'000, 8, 100), 8u);
  EXPECT_EQ(partsFor(1'000'000, 0, 100), 1u);
}

}  // namespace
}  // namespace ampscope
