#pragma once
// CUPTI's range profiler on one CUDA context, in auto-range mode with kernel replay: each kernel
// launch is one range, and the kernel is run alone (and, where the metrics need more passes than
// one, once per pass), so its counters are its own. That serialises the program's kernels: the
// recording's kernel times are not those of an unprofiled run (docs/collector.md).
//
// The ranges come out in the order the kernels were profiled, with their metric values, as
// trace::KernelMetrics. The range profiler gives no times or correlation ids: times_measured is
// false and the analysis matches the ranges to the process's kernel launches by their order. The
// kernel name is kept where CUPTI's range name is one (not just the range's number).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collector/cupti/chip_metrics.h"
#include "collector/cupti/counter_profiler_api.h"
#include "trace/trace_model.h"

namespace ampscope::collector {

class ActivitySink;

inline constexpr std::string_view kLostDroppedRanges =
    "range profiler: kernels not profiled (more launches between collections than its counter data holds)";

class ContextRangeProfiler {
 public:
  // Why it could not start: CUPTI's call, and the refusal in words.
  using Failure = CounterFailure;

  // Chooses the chip's metrics and starts profiling the context's kernels. api must outlive the
  // profiler; cuptiProfilerInitialize has been called. On failure nothing is left running.
  static std::unique_ptr<ContextRangeProfiler> start(CounterProfilerApi& api, CUcontext context, std::uint32_t device,
                                                     std::int64_t pid, std::size_t max_ranges, Failure* failure);
  ~ContextRangeProfiler();
  ContextRangeProfiler(const ContextRangeProfiler&) = delete;
  ContextRangeProfiler& operator=(const ContextRangeProfiler&) = delete;

  // Takes the ranges profiled so far and goes on profiling (restart), or ends the profiling
  // (the context is going away, or the recording stops). Ranges are kept until drain().
  void collect(bool restart);
  // Writes the collected ranges to sink, in order, and counts what CUPTI dropped.
  void drain(ActivitySink& sink);

  CUcontext context() const { return context_; }
  std::uint32_t device() const { return device_; }
  const std::string& chip() const { return chip_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<std::string>& leftOut() const { return left_out_; }
  bool running() const { return handle_ != 0; }
  // The first collection that failed, for the profile's note; empty while none has.
  const std::string& collectError() const { return collect_error_; }

 private:
  ContextRangeProfiler(CounterProfilerApi& api, CUcontext context, std::uint32_t device, std::int64_t pid)
      : api_(api), context_(context), device_(device), pid_(pid) {}

  CounterProfilerApi& api_;
  CUcontext context_;
  std::uint32_t device_;
  std::int64_t pid_;
  std::string chip_;
  std::vector<std::string> metrics_;
  std::vector<std::string> left_out_;
  CounterHandle handle_ = 0;
  std::vector<RawRange> collected_;
  std::size_t dropped_ = 0;
  std::string collect_error_;
  bool collect_error_told_ = false;
};

// A range name that is only the range's number ("0", "17") names no kernel.
bool rangeNameIsKernel(std::string_view name);

}  // namespace ampscope::collector
