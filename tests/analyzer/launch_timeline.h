#pragma once
// One host thread launching kernels onto one stream, as the synthetic runs of the tests record it:
// each launch is a cudaLaunchKernel call 2 to 6 µs after the host gets to it, and its kernel runs
// as soon as the launch and the kernel before it allow; a synchronising call waits for the GPU's
// work. The runs built on it (synthetic_run.h, inference_run.h) differ in what they wrap around
// the launches: training steps or inference calls.

#include <algorithm>
#include <cstdint>
#include <string>

#include "trace/trace_model.h"

namespace ampscope::test {

class LaunchTimeline {
 public:
  // `blocks`: every kernel's grid (one block per SM of the run's GPU); `sync_call`: the API call
  // that waits for the GPU ("cudaStreamSynchronize").
  LaunchTimeline(trace::Trace& trace, trace::Index thread, std::uint32_t blocks, const char* sync_call)
      : trace_(trace),
        thread_(thread),
        blocks_(blocks),
        launch_name_(trace.strings.intern("cudaLaunchKernel")),
        sync_name_(trace.strings.intern(sync_call)) {}

  // The host, at `now`, launches `kernel`, which runs for kernel_ns.
  void launch(std::int64_t now, const std::string& kernel, std::int64_t kernel_ns) {
    trace::LaunchCall call;
    call.start_ns = now + 2'000;
    call.end_ns = now + 6'000;
    call.correlation_id = correlation_;
    call.name = launch_name_;
    call.thread = thread_;
    trace_.launches.push_back(call);
    trace::Kernel k;
    k.start_ns = std::max(call.end_ns + 1'000, gpu_free_);
    k.end_ns = k.start_ns + kernel_ns;
    k.correlation_id = correlation_++;
    k.name = trace_.strings.intern(kernel);
    k.stream = 7;
    k.grid = {blocks_, 1, 1};
    k.block = {256, 1, 1};
    trace_.kernels.push_back(k);
    gpu_free_ = k.end_ns;
  }

  // The host, at `now`, waits for the GPU's work (a loss or result read back); returns when the
  // wait ends.
  std::int64_t waitForGpu(std::int64_t now) {
    trace::LaunchCall sync;
    sync.start_ns = now;
    sync.end_ns = std::max(now, gpu_free_) + 1'000;
    sync.correlation_id = correlation_++;
    sync.name = sync_name_;
    sync.thread = thread_;
    trace_.launches.push_back(sync);
    return sync.end_ns;
  }

 private:
  trace::Trace& trace_;
  trace::Index thread_;
  std::uint32_t blocks_;
  trace::StringId launch_name_;
  trace::StringId sync_name_;
  std::int64_t gpu_free_ = 0;
  std::uint64_t correlation_ = 1;
};

}  // namespace ampscope::test
