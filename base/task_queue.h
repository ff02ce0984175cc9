#pragma once
// Runs a number of tasks on a few workers that each take the next task as they end one: the
// calling thread is worker 0, each other worker gets a thread where the system gives one
// (runBeside). One place for the importers' slices and a job's files, where each task's size is
// not known beforehand.

#include <atomic>
#include <cstddef>
#include <exception>
#include <future>
#include <vector>

#include "base/run_beside.h"

namespace ampscope {

// task(i, worker) for each i in [0, count), on `workers` workers (at least one, at most one per
// task); `worker` tells a task whose resources it may use (a connection per worker, say). A
// worker whose thread the system refuses runs once the others have ended, and finds no task
// left. Returns when every worker has ended, then rethrows the first exception a worker let out
// (that worker takes no task after it; the others go on).
template <typename Task>
void runTasks(std::size_t count, std::size_t workers, const Task& task) {
  workers = std::max<std::size_t>(1, std::min(workers, count));
  std::atomic<std::size_t> next{0};
  const auto work = [&](std::size_t worker) {
    for (std::size_t i = next++; i < count; i = next++) task(i, worker);
  };
  std::vector<std::future<void>> others;
  others.reserve(workers - 1);
  std::exception_ptr failure;
  try {
    for (std::size_t worker = 1; worker < workers; ++worker) {
      others.push_back(runBeside(true, [&work, worker] { work(worker); }));
    }
    work(0);
  } catch (...) {
    failure = std::current_exception();
  }
  for (std::future<void>& other : others) {
    try {
      other.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ampscope
