#pragma once
// A PyTorch profiler (Kineto) trace written event by event, in the shape PyTorch writes it: complete
// ("ph": "X") events with times in microseconds, the operator on its host thread, the launch call
// inside it, the kernel on its stream once the launch returns, linked by a correlation id.

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ampscope::golden {

class KinetoTraceWriter {
 public:
  // The events of process pid (its kernels' too), whose kernels run on device.
  explicit KinetoTraceWriter(int pid = 1, int device = 0) : pid_(pid), device_(device) {}

  // One event; args is the inside of its "args" object.
  void event(std::string_view cat, std::string_view name, double ts, double dur, int tid, const std::string& args = "") {
    events_ += fmt::format(R"({}{{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
                           events_.empty() ? "\n    " : ",\n    ", cat, name, pid_, tid, ts, dur, args);
  }

  // A cudaLaunchKernel call at launch_ts on thread tid (inside the operator that launches it) and
  // its kernel on the stream.
  void launch(double launch_ts, int tid, std::string_view kernel, double kernel_ts, double kernel_dur, int stream = 7) {
    ++correlation_;
    event("cuda_runtime", "cudaLaunchKernel", launch_ts, 5, tid, fmt::format(R"("correlation": {})", correlation_));
    event("kernel", kernel, kernel_ts, kernel_dur, stream,
          fmt::format(R"("device": {}, "stream": {}, "correlation": {}, "grid": [120, 1, 1], "block": [256, 1, 1])",
                      device_, stream, correlation_));
  }

  // The whole file: the top-level members given (each `"key": value`, separated by commas), then
  // the events.
  std::string document(std::string_view members) const {
    return fmt::format(R"({{
  {},
  "traceEvents": [{}
  ]
}}
)",
                       members, events_);
  }

 private:
  int pid_;
  int device_;
  std::string events_;
  std::int64_t correlation_ = 100;
};

// deviceProperties as Kineto writes them, for one device.
inline std::string deviceProperties(std::string_view name, std::uint64_t memory_bytes, int major, int minor, int sms,
                                    int id = 0) {
  return fmt::format(R"("deviceProperties": [{{"id": {}, "name": "{}", "totalGlobalMem": {},
                         "computeMajor": {}, "computeMinor": {}, "numSms": {}}}])",
                     id, name, memory_bytes, major, minor, sms);
}

}  // namespace ampscope::golden
