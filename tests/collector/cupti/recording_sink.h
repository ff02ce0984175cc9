#pragma once
// An ActivitySink that keeps everything in a plain trace::Trace, so tests can compare rows.

#include <cstdint>
#include <string>
#include <string_view>

#include "collector/activity_sink.h"
#include "trace/trace_model.h"

namespace ampscope::collector {

class RecordingSink final : public ActivitySink {
 public:
  trace::StringId intern(std::string_view text) override { return trace.strings.intern(text); }
  trace::Index thread(std::int64_t pid, std::int64_t tid) override { return trace.threadIndex(pid, tid); }
  void device(const trace::Device& device) override { trace.devices.push_back(device); }
  void launch(const trace::LaunchCall& launch) override { trace.launches.push_back(launch); }
  void kernel(const trace::Kernel& kernel) override { trace.kernels.push_back(kernel); }
  void memoryOp(const trace::MemoryOp& op) override { trace.memory_ops.push_back(op); }
  void synchronization(const trace::Synchronization& sync) override { trace.synchronizations.push_back(sync); }
  void memoryEvent(const trace::MemoryEvent& event) override { trace.memory_events.push_back(event); }
  void metricSample(const trace::MetricSample& sample) override { trace.metric_samples.push_back(sample); }
  void kernelMetrics(const trace::KernelMetrics& range) override { trace.kernel_metrics.push_back(range); }
  void lost(std::string_view reason, std::uint64_t count) override {
    trace.import_stats.lost[std::string(reason)] += count;
  }

  std::string_view str(trace::StringId id) const { return trace.str(id); }
  std::uint64_t lostCount(std::string_view reason) const {
    const auto found = trace.import_stats.lost.find(std::string(reason));
    return found == trace.import_stats.lost.end() ? 0 : found->second;
  }

  trace::Trace trace;
};

}  // namespace ampscope::collector
