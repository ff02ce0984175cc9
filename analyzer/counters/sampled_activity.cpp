#include "analyzer/counters/sampled_activity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "analyzer/counters/gpu_kernels.h"
#include "analyzer/counters/metric_reading.h"

namespace ampscope::analyzer {
namespace {

struct SharePoint {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  double share = 0.0;
};
using Series = std::vector<SharePoint>;  // by start

// The busy share a tensor-pipe sample records, in 0..1; nullopt for a sample that is not one.
std::optional<double> tensorShare(const MetricReading& reading, double value) {
  // A value that is no number, or not one its unit allows, says nothing (std::clamp would keep a
  // NaN and spoil every sum, and make 250% a busy pipe).
  if (reading.meaning != MetricMeaning::kTensorPipeActive || !valueFitsUnit(reading, value)) return std::nullopt;
  if (reading.unit == MetricUnit::kPercent) return std::clamp(value / 100.0, 0.0, 1.0);
  if (reading.unit == MetricUnit::kRatio) return std::clamp(value, 0.0, 1.0);
  return std::nullopt;
}

// Per device, the series to read: the whole pipe's (the first such metric by name), else every op's.
std::map<std::uint32_t, std::vector<Series>> tensorSeries(const trace::Trace& trace, std::vector<std::string>& metrics) {
  std::map<std::uint32_t, std::map<std::string, std::pair<bool, Series>>> found;  // device -> metric -> (whole, series)
  std::map<trace::StringId, MetricReading> readings;
  for (const trace::MetricSample& sample : trace.metric_samples) {
    auto [it, fresh] = readings.try_emplace(sample.metric);
    if (fresh) it->second = readMetricName(trace.str(sample.metric));
    const std::optional<double> share = tensorShare(it->second, sample.value);
    if (!share || sample.end_ns <= sample.start_ns) continue;
    auto& entry = found[sample.device][std::string(trace.str(sample.metric))];
    entry.first = it->second.pipe.empty();
    entry.second.push_back({sample.start_ns, sample.end_ns, *share});
  }
  std::map<std::uint32_t, std::vector<Series>> out;
  for (auto& [device, by_metric] : found) {
    const auto whole = std::find_if(by_metric.begin(), by_metric.end(), [](const auto& m) { return m.second.first; });
    if (whole != by_metric.end()) {
      metrics.push_back(whole->first);
      out[device].push_back(std::move(whole->second.second));
      continue;
    }
    for (auto& [name, entry] : by_metric) {
      metrics.push_back(name);
      out[device].push_back(std::move(entry.second));
    }
  }
  std::sort(metrics.begin(), metrics.end());
  metrics.erase(std::unique(metrics.begin(), metrics.end()), metrics.end());
  return out;
}

// The series' busy share over [start, end), weighted by overlap; `covered_ns`: the overlap.
double meanOver(const Series& series, std::int64_t start, std::int64_t end, std::int64_t& covered_ns) {
  covered_ns = 0;
  // Samples are sorted by start and do not overlap: the first that may reach `start` is the one
  // before the first starting at or after it.
  auto it = std::lower_bound(series.begin(), series.end(), start,
                             [](const SharePoint& p, std::int64_t t) { return p.start_ns < t; });
  if (it != series.begin()) --it;
  double weighted = 0.0;
  for (; it != series.end() && it->start_ns < end; ++it) {
    const std::int64_t overlap = std::min(end, it->end_ns) - std::max(start, it->start_ns);
    if (overlap <= 0) continue;
    weighted += it->share * static_cast<double>(overlap);
    covered_ns += overlap;
  }
  return covered_ns > 0 ? weighted / static_cast<double>(covered_ns) : 0.0;
}

// The pipe's share over [start, end) from every series of the device (op series add), and the
// time the first covers.
double shareOver(const std::vector<Series>& series, std::int64_t start, std::int64_t end, std::int64_t& covered_ns) {
  double share = 0.0;
  covered_ns = 0;
  for (std::size_t s = 0; s < series.size(); ++s) {
    std::int64_t covered = 0;
    share += meanOver(series[s], start, end, covered);
    if (s == 0) covered_ns = covered;
  }
  return std::min(share, 1.0);
}

}  // namespace

SampledTensorActivity measureSampledTensorActivity(const trace::Trace& trace) {
  SampledTensorActivity out;
  out.share_by_kernel.assign(trace.kernels.size(), std::numeric_limits<float>::quiet_NaN());
  const std::map<std::uint32_t, std::vector<Series>> by_device = tensorSeries(trace, out.metrics);
  if (by_device.empty()) return out;
  const GpuKernels gpu(trace);
  // Per sample of each device's first series: the kernel time of each name in it.
  std::map<std::uint32_t, std::vector<std::vector<std::pair<trace::StringId, std::int64_t>>>> time_in_sample;
  for (const auto& [device, series] : by_device) time_in_sample[device].resize(series.front().size());
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    if (!gpu.onGpu(kernel)) continue;
    const auto device = by_device.find(kernel.device);
    if (device == by_device.end() || kernel.end_ns <= kernel.start_ns) continue;
    std::int64_t covered = 0;
    const double share = shareOver(device->second, kernel.start_ns, kernel.end_ns, covered);
    if (covered > 0) out.share_by_kernel[k] = static_cast<float>(share);
    const Series& first = device->second.front();
    auto& in_sample = time_in_sample[kernel.device];
    auto it = std::lower_bound(first.begin(), first.end(), kernel.start_ns,
                               [](const SharePoint& p, std::int64_t t) { return p.start_ns < t; });
    if (it != first.begin()) --it;
    for (; it != first.end() && it->start_ns < kernel.end_ns; ++it) {
      const std::int64_t overlap = std::min(kernel.end_ns, it->end_ns) - std::max(kernel.start_ns, it->start_ns);
      if (overlap <= 0) continue;
      auto& names = in_sample[static_cast<std::size_t>(it - first.begin())];
      auto name = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == kernel.name; });
      if (name == names.end()) names.emplace_back(kernel.name, overlap);
      else name->second += overlap;
    }
  }
  for (const auto& [device, series] : by_device) {
    const Series& first = series.front();
    const auto& in_sample = time_in_sample[device];
    for (std::size_t s = 0; s < first.size(); ++s) {
      const std::int64_t period = first[s].end_ns - first[s].start_ns;
      std::int64_t total = 0;
      const std::pair<trace::StringId, std::int64_t>* top = nullptr;
      for (const auto& entry : in_sample[s]) {
        total += entry.second;
        if (!top || entry.second > top->second) top = &entry;
      }
      if (!top || static_cast<double>(top->second) < kSampleNameAtLeast * static_cast<double>(period) ||
          static_cast<double>(total - top->second) > kSampleOthersAtMost * static_cast<double>(period)) {
        continue;
      }
      std::int64_t covered = 0;
      const double share = shareOver(series, first[s].start_ns, first[s].end_ns, covered);
      SampledNameShare& name = out.by_name[top->first];
      name.busy_ns += share * static_cast<double>(period);
      name.name_ns += std::min(top->second, period);
      name.period_ns += period;
    }
  }
  return out;
}

}  // namespace ampscope::analyzer
