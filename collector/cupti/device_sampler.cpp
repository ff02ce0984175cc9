#include "collector/cupti/device_sampler.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "collector/activity_sink.h"
#include "collector/cupti/chip_metrics.h"
#include "collector/collector_clock.h"

namespace ampscope::collector {

namespace {

// How far CUPTI's clock may sit from the collector's before the difference is applied: the two
// are read one after the other, a few microseconds apart at worst.
constexpr std::int64_t kSameClockNs = 1'000'000;
// How far outside the recording a sample may be stamped and still be kept: a sample opened just
// before sampling started, or closed as the decode ran.
constexpr std::int64_t kStampSlackNs = 1'000'000'000;

}  // namespace

bool hasPmTimeTrigger(const std::string& chip) { return chip.rfind("TU", 0) != 0 && chip != "GA100"; }

std::unique_ptr<DeviceSampler> DeviceSampler::start(CounterProfilerApi& api, std::uint32_t device,
                                                    const PmSamplingOptions& options, Failure* failure) {
  std::unique_ptr<DeviceSampler> sampler(new DeviceSampler(api, device));
  sampler->options_ = options;
  const auto fail = [&](const CounterCall& call) -> std::unique_ptr<DeviceSampler> {
    *failure = {call, failureText(api, call)};
    return nullptr;
  };
  if (CounterCall call = api.chipName(device, &sampler->chip_); !call.ok()) return fail(call);
  PmSamplingSetup setup;
  setup.device = device;
  setup.chip = sampler->chip_;
  // The counters the device gives to this process now: where profiling is restricted to
  // administrators, this is where the driver says so.
  if (CounterCall call = api.pmCounterAvailability(device, &setup.availability); !call.ok()) return fail(call);
  MetricChoice choice;
  const bool chosen =
      chooseChipMetrics(api, CounterProfiler::kPmSampling, setup.chip, setup.availability, "PM sampling", &choice, failure);
  sampler->left_out_ = choice.left_out;
  if (!chosen) return nullptr;
  setup.metrics = choice.metrics;
  sampler->metrics_ = choice.metrics;
  sampler->time_trigger_ = hasPmTimeTrigger(setup.chip);
  setup.time_trigger = sampler->time_trigger_;
  setup.interval = sampler->time_trigger_ ? options.interval_ns : options.interval_sysclk_cycles;
  setup.hardware_buffer_bytes = options.hardware_buffer_bytes;
  setup.samples_per_decode = options.samples_per_decode;
  // Both clocks read around the start, the later one last, so a sample cannot precede started_ns_.
  const std::int64_t cupti_now = static_cast<std::int64_t>(api.timestamp());
  const std::int64_t collector_now = collectorNowNs();
  if (std::llabs(collector_now - cupti_now) > kSameClockNs) sampler->clock_offset_ns_ = collector_now - cupti_now;
  sampler->started_ns_ = collector_now;
  if (CounterCall call = api.pmStart(setup, &sampler->handle_); !call.ok()) return fail(call);
  sampler->running_ = true;
  return sampler;
}

DeviceSampler::~DeviceSampler() {
  if (handle_ == 0) return;
  if (running_) (void)api_.pmStop(handle_);
  api_.pmRelease(handle_);
}

std::string DeviceSampler::periodText() const {
  if (time_trigger_) return fmt::format("every {} us", options_.interval_ns / 1000);
  return fmt::format("every {} system clock cycles", options_.interval_sysclk_cycles);
}

void DeviceSampler::drain(ActivitySink& sink) {
  if (handle_ == 0) return;
  std::vector<trace::StringId> metric_ids;
  for (const std::string& metric : metrics_) metric_ids.push_back(sink.intern(metric));
  for (int round = 0; round < options_.max_decodes_per_drain; ++round) {
    PmDecode decoded;
    const CounterCall call = api_.pmDecode(handle_, &decoded);
    if (!call.ok()) {
      sink.lost(hardwareCounterNote(fmt::format("PM sampling of device {} stopped: {}", device_, failureText(api_, call))), 1);
      (void)api_.pmStop(handle_);
      api_.pmRelease(handle_);
      handle_ = 0;
      running_ = false;
      return;
    }
    if (decoded.overflow) sink.lost(kLostSampleOverflow, 1);
    const std::int64_t now_ns = collectorNowNs();
    for (const RawSample& sample : decoded.samples) store(sample, metric_ids, sink, now_ns);
    if (decoded.drained) break;
  }
}

void DeviceSampler::store(const RawSample& sample, const std::vector<trace::StringId>& metric_ids, ActivitySink& sink,
                          std::int64_t now_ns) {
  // The first sample of a device spans whatever the counters did before sampling was set up
  // (Kineto drops it for the same reason): not a measurement of the program.
  if (!first_sample_seen_) {
    first_sample_seen_ = true;
    return;
  }
  bool usable = sample.values.size() == metrics_.size() && sample.end >= sample.start;
  for (double value : sample.values) usable = usable && std::isfinite(value);
  if (!usable) {
    sink.lost(kLostUnusableSamples, 1);
    return;
  }
  const std::int64_t start_ns = static_cast<std::int64_t>(sample.start) + clock_offset_ns_;
  const std::int64_t end_ns = static_cast<std::int64_t>(sample.end) + clock_offset_ns_;
  if (start_ns < started_ns_ - kStampSlackNs || end_ns > now_ns + kStampSlackNs) {
    sink.lost(kLostOffClockSamples, 1);
    return;
  }
  for (std::size_t i = 0; i < metrics_.size(); ++i) {
    trace::MetricSample row;
    row.start_ns = start_ns;
    row.end_ns = end_ns;
    row.device = device_;
    row.metric = metric_ids[i];
    row.value = sample.values[i];
    sink.metricSample(row);
  }
}

void DeviceSampler::stop() {
  if (!running_) return;
  running_ = false;
  (void)api_.pmStop(handle_);
}

}  // namespace ampscope::collector
