#pragma once
// Where the collector's record sources (CUPTI activity buffers, hardware counters, host ops of the
// CPU backend) put
// what they decoded. The recorder implements it on its writer thread, interning strings and
// appending rows to the profile; tests implement it over a plain trace::Trace.

#include <cstdint>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::collector {

class ActivitySink {
 public:
  virtual ~ActivitySink() = default;

  virtual trace::StringId intern(std::string_view text) = 0;
  // Index of the thread (pid, tid), added when new.
  virtual trace::Index thread(std::int64_t pid, std::int64_t tid) = 0;

  virtual void device(const trace::Device& device) = 0;
  virtual void launch(const trace::LaunchCall& launch) = 0;
  virtual void kernel(const trace::Kernel& kernel) = 0;
  virtual void memoryOp(const trace::MemoryOp& op) = 0;
  virtual void synchronization(const trace::Synchronization& sync) = 0;
  // An allocation (bytes > 0) or free (bytes < 0); its thread is an index from thread().
  virtual void memoryEvent(const trace::MemoryEvent& event) = 0;
  // A device-wide hardware metric sample (PM sampling), its metric interned through intern().
  virtual void metricSample(const trace::MetricSample& sample) = 0;
  // One range profiler range with its metric values, in the order the ranges were profiled.
  virtual void kernelMetrics(const trace::KernelMetrics& range) = 0;
  // Records the source lost or could not decode, by reason ("CUPTI dropped records", ...).
  virtual void lost(std::string_view reason, std::uint64_t count) = 0;
};

}  // namespace ampscope::collector
