#include "collector/cupti/hardware_metrics_source.h"

#include <unistd.h>

#include <fmt/format.h>

#include "collector/activity_sink.h"
#include "collector/cupti/chip_metrics.h"
#include "collector/cupti/context_range_profiler.h"
#include "collector/cupti/counter_profiler_api.h"
#include "collector/cupti/device_sampler.h"
#include "collector/cupti/real_counter_profiler_api.h"

namespace ampscope::collector {

namespace {

bool isPrivilegeRefusal(CUptiResult result) {
  return result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || result == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

void CUPTIAPI onContext(void* user, CUcontext context, bool created) {
  auto* source = static_cast<HardwareMetricsSource*>(user);
  if (created) {
    source->contextCreated(context);
  } else {
    source->contextDestroying(context);
  }
}

}  // namespace

trace::Result<std::unique_ptr<HardwareMetricsSource>> HardwareMetricsSource::start(MetricsMode mode,
                                                                                   const HardwareMetricsOptions& options) {
  return start(std::make_unique<RealCounterProfilerApi>(), mode, options, static_cast<std::int64_t>(getpid()));
}

trace::Result<std::unique_ptr<HardwareMetricsSource>> HardwareMetricsSource::start(std::unique_ptr<CounterProfilerApi> api,
                                                                                   MetricsMode mode,
                                                                                   const HardwareMetricsOptions& options,
                                                                                   std::int64_t pid) {
  if (api == nullptr) return trace::Error{"HardwareMetricsSource::start: no CounterProfilerApi given"};
  if (mode == MetricsMode::kNone) return trace::Error{"HardwareMetricsSource::start: no metrics asked for"};
  std::unique_ptr<HardwareMetricsSource> source(new HardwareMetricsSource(std::move(api), mode, options, pid));
  const CounterCall subscribed = source->api_->subscribeContexts(&onContext, source.get());
  if (!subscribed.ok()) {
    std::string why = failureText(*source->api_, subscribed);
    if (subscribed.result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      why += ": another tool in the process (Nsight Systems, a PyTorch profiler) already holds CUPTI's callbacks";
    }
    return trace::Error{hardwareCounterNote(why)};
  }
  return source;
}

HardwareMetricsSource::HardwareMetricsSource(std::unique_ptr<CounterProfilerApi> api, MetricsMode mode,
                                             const HardwareMetricsOptions& options, std::int64_t pid)
    : api_(std::move(api)), mode_(mode), options_(options), pid_(pid) {}

HardwareMetricsSource::~HardwareMetricsSource() {
  // No callback can reach this source once unsubscribed; what still runs is released unread.
  api_->unsubscribe();
  const std::lock_guard lock(mutex_);
  samplers_.clear();
  profilers_.clear();
  if (initialized_) api_->deinitializeProfiler();
}

void HardwareMetricsSource::refused(const CounterCall& call, const std::string& message, const std::string& where) {
  if (isPrivilegeRefusal(call.result)) {
    ++notes_[std::string(kPrivilegeNote)];
    unavailable_.push_back(fmt::format("{}: the driver allows profiling to admin users only", where));
  } else {
    ++notes_[hardwareCounterNote(fmt::format("{}: {}", where, message))];
    unavailable_.push_back(fmt::format("{}: {}", where, message));
  }
}

bool HardwareMetricsSource::initialize() {
  if (initialized_) return true;
  if (initialize_failed_) return false;
  const CounterCall call = api_->initializeProfiler();
  if (!call.ok()) {
    initialize_failed_ = true;
    refused(call, failureText(*api_, call), "CUPTI's profiler");
    return false;
  }
  initialized_ = true;
  return true;
}

void HardwareMetricsSource::contextCreated(void* context_pointer) {
  auto* context = static_cast<CUcontext>(context_pointer);
  std::uint32_t device = 0;
  const CounterCall found = api_->deviceOf(context, &device);  // a query: no profiler state
  const std::lock_guard lock(mutex_);
  if (stopping_) return;
  if (!found.ok()) {
    refused(found, fmt::format("{} failed: {}", found.call, api_->resultString(found.result)), "a CUDA context");
    return;
  }
  if (mode_ == MetricsMode::kSampled) {
    // Sampling is per device and needs no context: the writer thread starts it at its next cycle,
    // so no profiler call runs inside CUPTI's callback on the program's thread.
    pending_devices_.insert(device);
    return;
  }
  // The range profiler must be on the context before its first kernel: here, in the callback.
  if (!initialize()) return;
  const std::string where = fmt::format("device {}", device);
  ContextRangeProfiler::Failure failure;
  auto profiler = ContextRangeProfiler::start(*api_, context, device, pid_, options_.max_ranges, &failure);
  if (!profiler) {
    refused(failure.call, failure.message, where);
    return;
  }
  recorded_.push_back(fmt::format("range profiler on a context of device {} ({}), one range per kernel, kernels run one "
                                  "at a time: {}",
                                  device, profiler->chip(), fmt::join(profiler->metrics(), ", ")));
  profilers_.push_back(std::move(profiler));
}

void HardwareMetricsSource::contextDestroying(void* context_pointer) {
  auto* context = static_cast<CUcontext>(context_pointer);
  const std::lock_guard lock(mutex_);
  // Its ranges are taken now, while CUPTI can still read them; the next drain writes them.
  for (auto& profiler : profilers_) {
    if (profiler->context() == context && profiler->running()) profiler->collect(false);
  }
}

void HardwareMetricsSource::startSamplers() {
  for (std::uint32_t device : pending_devices_) {
    if (samplers_.contains(device) || refused_devices_.contains(device)) continue;  // per device, not per context
    if (!initialize()) break;
    DeviceSampler::Failure failure;
    auto sampler = DeviceSampler::start(*api_, device, options_.sampling, &failure);
    if (!sampler) {
      refused_devices_.insert(device);
      refused(failure.call, failure.message, fmt::format("device {}", device));
      continue;
    }
    recorded_.push_back(fmt::format("PM sampling of device {} ({}) {}: {}", device, sampler->chip(), sampler->periodText(),
                                    fmt::join(sampler->metrics(), ", ")));
    samplers_.emplace(device, std::move(sampler));
  }
  pending_devices_.clear();
}

void HardwareMetricsSource::drain(ActivitySink& sink) {
  const std::lock_guard lock(mutex_);
  // Even at the last drain: a device whose context came just before the end gets its note, or
  // what little was sampled.
  startSamplers();
  for (auto& [device, sampler] : samplers_) sampler->drain(sink);
  for (auto& profiler : profilers_) {
    if (profiler->running()) profiler->collect(!stopping_);
    profiler->drain(sink);
  }
  // Profilers of contexts that are gone, and everything once stopped, hold nothing more.
  std::erase_if(profilers_, [](const auto& profiler) { return !profiler->running(); });
  if (stopping_) samplers_.clear();
  for (const auto& [note, count] : notes_) sink.lost(note, count);
  notes_.clear();
}

void HardwareMetricsSource::stop() {
  const std::lock_guard lock(mutex_);
  stopping_ = true;
  for (auto& [device, sampler] : samplers_) sampler->stop();
}

std::string HardwareMetricsSource::describe() const {
  const std::lock_guard lock(mutex_);
  if (!recorded_.empty()) {
    std::string text = fmt::format("recorded: {}", fmt::join(recorded_, "; "));
    if (!unavailable_.empty()) text += fmt::format("; unavailable on {}", fmt::join(unavailable_, "; "));
    return text;
  }
  if (!unavailable_.empty()) return fmt::format("unavailable: {}", fmt::join(unavailable_, "; "));
  return fmt::format("unavailable: the program created no CUDA context, so no hardware counter ({}) was recorded",
                     metricsModeName(mode_));
}

}  // namespace ampscope::collector
