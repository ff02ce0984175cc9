#pragma once
// Hardware counters for a recording (`--metrics`), drained by the recorder's writer thread like
// CUPTI's activity: PM sampling of every device the program creates a context on (kSampled), or
// the range profiler on every context (kPerKernel).
//
// It hooks context creation (CUPTI's callback API). The range profiler starts there, on the
// program's thread, before the context's first kernel. PM sampling works per device and needs no
// context: the writer thread starts it at its next cycle (at most one flush interval later), so
// that no profiler call runs inside CUPTI's callback. All profiler calls are serialised by one
// mutex; in per-kernel mode a context's creation or destruction on the program's thread waits for
// a collection running on the writer thread. What cannot be
// had never stops the recording: a device or context the driver refuses (profiling restricted to
// administrators), a chip without the counters, another tool holding CUPTI's callbacks, each
// leaves a note in the profile (ActivitySink::lost with a "hardware counters: ..." reason) and in
// describe(), which the recorder stores as meta "hardware_metrics".
//
// No CUDA headers here, so the recording outside collector/cupti can use it.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "collector/activity_source.h"
#include "collector/hardware_metrics.h"
#include "trace/result.h"

namespace ampscope::collector {

class CounterProfilerApi;
class ContextRangeProfiler;
class DeviceSampler;
struct CounterCall;

struct HardwareMetricsOptions {
  PmSamplingOptions sampling;
  // Ranges the range profiler's counter data holds between two collections (one per writer
  // cycle); kernels launched beyond it are counted as dropped.
  std::size_t max_ranges = 2048;
};

class HardwareMetricsSource final : public ActivitySource {
 public:
  // Through libcupti. Fails (with the profile's note as message) only where nothing at all can be
  // recorded: mode kNone, CUPTI's callbacks taken by another tool, the profiler not initialised.
  static trace::Result<std::unique_ptr<HardwareMetricsSource>> start(MetricsMode mode,
                                                                     const HardwareMetricsOptions& options = {});
  // The same through any CounterProfilerApi (the tests' fake); pid goes into each KernelMetrics.
  static trace::Result<std::unique_ptr<HardwareMetricsSource>> start(std::unique_ptr<CounterProfilerApi> api,
                                                                     MetricsMode mode, const HardwareMetricsOptions& options,
                                                                     std::int64_t pid);
  ~HardwareMetricsSource() override;
  HardwareMetricsSource(const HardwareMetricsSource&) = delete;
  HardwareMetricsSource& operator=(const HardwareMetricsSource&) = delete;

  // ActivitySource (writer thread): decodes samples and ranges into sink, with the notes.
  void drain(ActivitySink& sink) override;
  void flush() override {}
  // Stops sampling and profiling; the next drain() takes the rest and releases CUPTI's objects.
  void stop() override;

  // "recorded: ..." naming what is recorded on which device and chip, or "unavailable: ..." with why.
  std::string describe() const;

  // CUPTI's context callback lands here (through the api's C callback).
  void contextCreated(void* context);
  void contextDestroying(void* context);

 private:
  HardwareMetricsSource(std::unique_ptr<CounterProfilerApi> api, MetricsMode mode, const HardwareMetricsOptions& options,
                        std::int64_t pid);
  void refused(const CounterCall& call, const std::string& message, const std::string& where);
  bool initialize();  // cuptiProfilerInitialize, once, at the first context
  void startSamplers();  // PM sampling of the devices whose first context came since the last drain

  std::unique_ptr<CounterProfilerApi> api_;
  const MetricsMode mode_;
  const HardwareMetricsOptions options_;
  const std::int64_t pid_;

  mutable std::mutex mutex_;  // the program's threads (context callbacks) and the writer
  bool stopping_ = false;
  bool initialized_ = false;
  bool initialize_failed_ = false;
  std::set<std::uint32_t> refused_devices_;  // not tried again for their next context
  std::set<std::uint32_t> pending_devices_;  // with a context, not yet sampled
  std::map<std::uint32_t, std::unique_ptr<DeviceSampler>> samplers_;  // by device
  std::vector<std::unique_ptr<ContextRangeProfiler>> profilers_;     // running or holding ranges
  std::vector<std::string> recorded_;     // what is recorded where, for describe()
  std::vector<std::string> unavailable_;  // why not, where, for describe()
  std::map<std::string, std::uint64_t> notes_;  // for the sink's lost(), told at the next drain
};

}  // namespace ampscope::collector
