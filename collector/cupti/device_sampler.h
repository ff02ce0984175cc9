#pragma once
// CUPTI PM sampling of one device: device-wide samples of the chosen metrics over time, stamped
// on the collector's clock, into an ActivitySink as trace::MetricSample rows.
//
// CUPTI stamps PM samples with the same timestamp source as its activity records; the recording
// registers the collector's clock there (GpuActivitySource), so the samples line up with kernels
// and NVTX ranges. Should CUPTI's clock still differ from the collector's when sampling starts
// (cuptiGetTimestamp against collectorNowNs), the difference read then is applied to every sample.
// A sample stamped outside the recording is counted as lost rather than stored at a wrong time.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collector/cupti/chip_metrics.h"
#include "collector/cupti/counter_profiler_api.h"
#include "trace/result.h"
#include "trace/string_table.h"

namespace ampscope::collector {

class ActivitySink;

// Reasons under which samples are reported to ActivitySink::lost.
inline constexpr std::string_view kLostSampleOverflow =
    "PM sampling: hardware buffer overflowed (newer samples not recorded)";
inline constexpr std::string_view kLostUnusableSamples = "PM sampling: samples without usable values or interval";
inline constexpr std::string_view kLostOffClockSamples = "PM sampling: samples stamped outside the recording";

class DeviceSampler {
 public:
  // Why it could not start: CUPTI's call, and the refusal in words.
  using Failure = CounterFailure;

  // Chooses the device's metrics and starts sampling. The api must outlive the sampler; cuptiProfilerInitialize
  // has been called. On failure nothing is left running.
  static std::unique_ptr<DeviceSampler> start(CounterProfilerApi& api, std::uint32_t device,
                                              const PmSamplingOptions& options, Failure* failure);
  ~DeviceSampler();
  DeviceSampler(const DeviceSampler&) = delete;
  DeviceSampler& operator=(const DeviceSampler&) = delete;

  // Decodes the samples CUPTI holds into sink, one MetricSample per metric per sample.
  void drain(ActivitySink& sink);
  // Stops sampling; a last drain() takes what is left.
  void stop();

  std::uint32_t device() const { return device_; }
  const std::string& chip() const { return chip_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<std::string>& leftOut() const { return left_out_; }
  // "every 100 us" or "every 100000 system clock cycles".
  std::string periodText() const;

 private:
  DeviceSampler(CounterProfilerApi& api, std::uint32_t device) : api_(api), device_(device) {}
  void store(const RawSample& sample, const std::vector<trace::StringId>& metric_ids, ActivitySink& sink,
             std::int64_t now_ns);

  CounterProfilerApi& api_;
  std::uint32_t device_;
  std::string chip_;
  std::vector<std::string> metrics_;
  std::vector<std::string> left_out_;
  PmSamplingOptions options_;
  bool time_trigger_ = true;
  CounterHandle handle_ = 0;
  bool running_ = false;
  bool first_sample_seen_ = false;
  std::int64_t clock_offset_ns_ = 0;  // added to CUPTI's stamps
  std::int64_t started_ns_ = 0;
};

// Whether a chip has PM sampling's time trigger (CUPTI: not Turing, not GA100).
bool hasPmTimeTrigger(const std::string& chip);

}  // namespace ampscope::collector
