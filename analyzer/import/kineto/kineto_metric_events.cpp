#include "analyzer/import/kineto/kineto_metric_events.h"

#include <charconv>
#include <cmath>

#include "analyzer/import/kineto/kineto_values.h"

namespace ampscope::analyzer::import {

namespace {

// The whole text as a finite number; from_chars also reads "nan" and "inf", which are no metric's
// value.
std::optional<double> finiteNumber(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double number = 0;
  const auto [at, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || at != text.data() + text.size() || !std::isfinite(number)) return std::nullopt;
  return number;
}

bool allDigits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool holdsMetricArgs(std::string_view cat) {
  return isWord(cat, "cuda_profiler_range") || isWord(cat, "hardware_counters");
}

std::optional<double> metricNumber(const JsonScalar& value) {
  switch (value.form) {
    case JsonScalar::Form::kNumber: return finiteNumber(value.text);
    case JsonScalar::Form::kString: return finiteNumber(trimJsonSpace(value.text));
    case JsonScalar::Form::kAbsent:
    case JsonScalar::Form::kOther: break;
  }
  return std::nullopt;
}

ProfiledRange profiledRangeOf(std::string_view range_name) {
  // CuptiRBProfilerSession pushes this one range (kRootUserRangeName) when it profiles user ranges.
  return range_name == "__profile__" ? ProfiledRange::kWholeSession : ProfiledRange::kKernelLaunch;
}

std::string_view profiledKernelName(std::string_view range_name) {
  if (range_name == "__missing__" || allDigits(range_name)) return {};
  return range_name;
}

std::size_t appendMetricValues(std::span<const MetricArg> args, trace::StringTable& strings,
                               std::vector<trace::MetricValue>& values) {
  std::size_t not_numbers = 0;
  for (const MetricArg& arg : args) {
    const std::optional<double> number = metricNumber(arg.value);
    if (!number) {
      ++not_numbers;
      continue;
    }
    values.push_back({strings.intern(arg.key), *number});
  }
  return not_numbers;
}

std::optional<std::uint32_t> counterTrackDevice(std::string_view pid_label) {
  constexpr std::string_view kPrefix = "GPU ";
  constexpr std::string_view kSuffix = " Counters";
  if (pid_label.size() <= kPrefix.size() + kSuffix.size() || !pid_label.starts_with(kPrefix) ||
      !pid_label.ends_with(kSuffix)) {
    return std::nullopt;
  }
  const std::string_view digits = pid_label.substr(kPrefix.size(), pid_label.size() - kPrefix.size() - kSuffix.size());
  if (!allDigits(digits)) return std::nullopt;
  std::uint32_t device = 0;
  const auto [at, error] = std::from_chars(digits.data(), digits.data() + digits.size(), device);
  if (error != std::errc() || at != digits.data() + digits.size()) return std::nullopt;
  return device;
}

std::optional<double> counterSampleValue(std::span<const MetricArg> args) {
  for (const MetricArg& arg : args) {
    if (arg.key.empty()) return metricNumber(arg.value);
  }
  return std::nullopt;
}

ProfilerRangeReading readProfilerRange(const ProfilerRangeEvent& range, trace::StringTable& strings,
                                       std::vector<trace::KernelMetrics>& out) {
  if (profiledRangeOf(range.name) == ProfiledRange::kWholeSession) return {.whole_session = true};
  trace::KernelMetrics& metrics = out.emplace_back();
  metrics.start_ns = range.start_ns;
  metrics.end_ns = range.end_ns;
  if (const std::string_view kernel = profiledKernelName(range.name); !kernel.empty()) {
    metrics.kernel_name = strings.intern(kernel);
  }
  metrics.correlation_id = range.correlation;
  metrics.device = range.device;
  // Every version splits the profiler's span evenly among a device's ranges, one per launch in
  // launch order (CuptiRangeProfilerSession::addRangeEvents): the times place no kernel.
  metrics.times_measured = false;
  return {.not_numbers = appendMetricValues(range.args, strings, metrics.values)};
}

std::string_view readCounterSample(const CounterEvent& counter, trace::StringTable& strings,
                                   std::vector<trace::MetricSample>& out) {
  if (!counter.has_ts) return kSampleWithoutTime;
  const std::optional<std::uint32_t> device = counterTrackDevice(counter.pid_label);
  if (!device) return kSampleWithoutGpu;
  if (counter.metric.empty()) return kSampleWithoutMetric;
  const std::optional<double> value = counterSampleValue(counter.args);
  if (!value) return kSampleWithoutValue;
  trace::MetricSample& sample = out.emplace_back();
  sample.start_ns = counter.ts_ns;
  sample.device = *device;
  sample.metric = strings.intern(counter.metric);
  sample.value = *value;
  return {};
}

}  // namespace ampscope::analyzer::import
