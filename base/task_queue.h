#pragma once
// Runs a number of tasks on a few workers that each take the next task as they end one: the
// calling thread is worker 0, each other worker gets a thread where the system gives one
// (runBeside). One place for the importers' slices, a job's files and the parts of a run of items
// (parallel_parts.h), where each task's size is not known beforehand.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <future>
#include <mutex>
#include <vector>

#include "base/run_beside.h"

namespace ampscope {

// task(i, worker) for each i in [0, count), on `workers` workers (at least one, at most one per
// task); `worker` tells a task whose resources it may use (a connection per worker, say). A
// worker whose thread the system refuses runs once the others have ended, and finds no task
// left. Every task runs, whatever another threw; once all have ended, the exception of the
// lowest-numbered task that threw is rethrown (the same whatever the scheduling).
template <typename Task>
void runTasks(std::size_t count, std::size_t workers, const Task& task) {
  workers = std::max<std::size_t>(1, std::min(workers, count));
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::size_t failed_task = count;
  std::exception_ptr failure;
  const auto work = [&](std::size_t worker) {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        task(i, worker);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (i < failed_task) {
          failed_task = i;
          failure = std::current_exception();
        }
      }
    }
  };
  {
    std::vector<std::future<void>> others;  // each waits for its worker as it is destroyed
    others.reserve(workers - 1);
    for (std::size_t worker = 1; worker < workers; ++worker) {
      others.push_back(runBeside(true, [&work, worker] { work(worker); }));
    }
    work(0);
    for (std::future<void>& other : others) other.get();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ampscope
