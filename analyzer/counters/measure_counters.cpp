#include "analyzer/counters/measure_counters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/counters/metric_reading.h"
#include "analyzer/counters/gpu_kernels.h"
#include "analyzer/counters/group_counters.h"
#include "analyzer/counters/range_tally.h"
#include "analyzer/counters/sampled_activity.h"

namespace ampscope::analyzer {
namespace {

using trace::kNone;
using trace::StringId;

std::size_t at(trace::Index index) { return static_cast<std::size_t>(index); }

// The name a range is tallied under: the kernel's it measured where matched (a trace's names may
// be spelled otherwise in the ranges), else its own.
StringId nameOf(const trace::Trace& trace, const trace::KernelMetrics& range) {
  return range.kernel != kNone ? trace.kernels[at(range.kernel)].name : range.kernel_name;
}

// Values that break what their unit allows are counted, and the range's other values are read.
void checkValues(const trace::Trace& trace, const trace::KernelMetrics& range, CounterAnalysis& analysis) {
  for (const trace::MetricValue& v : range.values) {
    if (valueFitsUnit(readMetricName(trace.str(v.metric)), v.value)) continue;
    const std::string reason = "hardware metric value outside what its unit allows";
    ++analysis.not_understood[reason];
    analysis.first_place.try_emplace(reason, fmt::format("{} = {} in the range of kernel '{}'", trace.str(v.metric),
                                                         v.value, trace.str(range.kernel_name)));
  }
}

TensorCoreVerdict measuredVerdict(const TensorCoreVerdict& by_name, bool busy, const KernelCounterRow& row) {
  TensorCoreVerdict verdict;
  verdict.tensor_core = busy ? TensorCoreUse::kYes : TensorCoreUse::kNo;
  // The counters tell the pipe, not the precision: a busy kernel keeps the precision its name
  // gives where that is a Tensor Core one; an idle one keeps a CUDA-core precision its name gives.
  const bool name_tensor = by_name.tensor_core == TensorCoreUse::kYes;
  if (busy == name_tensor) verdict.precision = by_name.precision;
  else if (!busy && by_name.precision == MathPrecision::kFp32Simt) verdict.precision = by_name.precision;
  verdict.confidence = Confidence::kMeasured;
  verdict.rule_id = std::string(rule_ids::kMeasuredTensorPipe);
  verdict.alignment = by_name.alignment;
  const std::string share = row.tensor_active ? fmt::format(" {:.1f}% of cycles", *row.tensor_active * 100.0) : "";
  verdict.evidence = fmt::format("the tensor pipe was {}{} ({}: {})", busy ? "busy" : "idle", share,
                                 measurementSourceName(row.source), row.basis);
  return verdict;
}

std::vector<MetricSeries> seriesOf(const trace::Trace& trace) {
  std::map<std::pair<std::uint32_t, StringId>, MetricSeries> by_key;
  for (const trace::MetricSample& sample : trace.metric_samples) {
    auto [it, fresh] = by_key.try_emplace({sample.device, sample.metric});
    MetricSeries& series = it->second;
    if (fresh) {
      series.device = sample.device;
      series.metric = std::string(trace.str(sample.metric));
      series.reading = readMetricName(series.metric);
      series.share = series.reading.meaning != MetricMeaning::kOther &&
                     (series.reading.unit == MetricUnit::kPercent || series.reading.unit == MetricUnit::kRatio);
    }
    // A value its unit does not allow (counted by the import, or below) is not drawn; a share a
    // hair over the whole, as rounding gives, is drawn as the whole.
    if (!valueFitsUnit(series.reading, sample.value)) continue;
    double value = sample.value;
    if (series.share && series.reading.unit == MetricUnit::kPercent) value /= 100.0;
    if (series.share) value = std::min(value, 1.0);
    series.points.push_back({sample.start_ns, sample.end_ns, value});
  }
  std::vector<MetricSeries> out;
  out.reserve(by_key.size());
  for (auto& [key, series] : by_key) out.push_back(std::move(series));
  std::sort(out.begin(), out.end(), [](const MetricSeries& a, const MetricSeries& b) {
    return a.device != b.device ? a.device < b.device : a.metric < b.metric;
  });
  return out;
}

std::int64_t gpuKernelTime(const trace::Trace& trace) {
  const GpuKernels gpu(trace);
  std::int64_t total = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (gpu.onGpu(kernel)) total += kernel.end_ns - kernel.start_ns;
  }
  return total;
}

}  // namespace

const char* measurementSourceName(MeasurementSource source) {
  switch (source) {
    case MeasurementSource::kNone: return "none";
    case MeasurementSource::kPerKernel: return "per_kernel";
    case MeasurementSource::kSampled: return "sampled";
  }
  return "none";
}

CounterMeasurement measureCounters(const trace::Trace& trace, const VerdictDevice& device,
                                   const TensorCoreRules& rules) {
  CounterMeasurement out;
  CounterAnalysis& analysis = out.analysis;
  if (trace.kernel_metrics.empty() && trace.metric_samples.empty()) {
    // Nothing measured: all the kernel time is unknown to the counters, and says how much.
    analysis.tensor_cores.kernel_time_ns = gpuKernelTime(trace);
    return out;
  }
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> per_kernel_share(trace.kernels.size(), kNan);

  std::map<StringId, RangeTally> tallies;
  for (const trace::KernelMetrics& range : trace.kernel_metrics) {
    checkValues(trace, range, analysis);
    const std::optional<double> share = tallies[nameOf(trace, range)].add(trace, range);
    if (share && range.kernel != kNone) per_kernel_share[at(range.kernel)] = static_cast<float>(*share);
  }
  analysis.groups = tallyGroups(trace, analysis.groups_operators);
  SampledTensorActivity sampled = measureSampledTensorActivity(trace);

  const GpuKernels gpu(trace);
  // Per kernel: the per-kernel counters' share where measured, else the samples'.
  analysis.tensor_active_by_kernel.assign(trace.kernels.size(), kNan);
  std::map<StringId, std::pair<double, std::int64_t>> sampled_by_name;  // share x time, time
  std::map<StringId, std::int64_t> time_by_name;
  std::map<StringId, std::int64_t> per_kernel_time_by_name;  // the time its ranges measured
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    if (!gpu.onGpu(kernel)) continue;
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    time_by_name[kernel.name] += duration;
    float share = per_kernel_share[k];
    if (!std::isnan(share)) per_kernel_time_by_name[kernel.name] += duration;
    if (std::isnan(share) && !sampled.share_by_kernel.empty()) {
      share = sampled.share_by_kernel[k];
      if (!std::isnan(share)) {
        auto& [weighted, time] = sampled_by_name[kernel.name];
        weighted += share * static_cast<double>(duration);
        time += duration;
      }
    }
    analysis.tensor_active_by_kernel[k] = share;
  }
  for (const auto& [name, entry] : sampled_by_name) tallies[name];  // names only samples measured

  for (const auto& [name, tally] : tallies) {
    KernelCounterRow row;
    row.kernel = std::string(trace.str(name));
    row.ranges = tally.ranges();
    row.matched = tally.matched();
    row.totals = tally.totals(trace);
    row.cuda_core_ops = tally.cudaCoreOps();
    if (const auto time = time_by_name.find(name); time != time_by_name.end()) row.time_ns = time->second;
    std::optional<bool> busy;
    if (tally.busy()) {
      row.source = MeasurementSource::kPerKernel;
      row.basis = tally.basis();
      row.tensor_active = tally.share();
      busy = tally.busy();
      if (const auto time = per_kernel_time_by_name.find(name); time != per_kernel_time_by_name.end()) {
        row.measured_ns = time->second;
      }
    } else if (const auto sampled_name = sampled_by_name.find(name); sampled_name != sampled_by_name.end()) {
      row.source = MeasurementSource::kSampled;
      for (const std::string& metric : sampled.metrics) row.basis += (row.basis.empty() ? "" : "; ") + metric;
      row.measured_ns = sampled_name->second.second;
      if (row.measured_ns > 0) row.tensor_active = sampled_name->second.first / static_cast<double>(row.measured_ns);
      if (const auto pure = sampled.by_name.find(name); pure != sampled.by_name.end()) {
        // Busy: the pipe's share of the name's own time; idle: the counter read no more than its
        // smallest step over the name's samples (1e-9: a mean of readings of exactly 1%).
        if (pure->second.share() >= kSampledBusyShare) busy = true;
        else if (pure->second.reading() <= kSampledIdleShare + 1e-9) busy = false;
      }
    }
    if (busy && name != trace::StringTable::kEmpty) {
      const TensorCoreVerdict by_name = withNameEvidence(rules.classify(row.kernel), row.kernel, device);
      out.verdicts.emplace(name, measuredVerdict(by_name, *busy, row));
      const bool name_known = by_name.tensor_core == TensorCoreUse::kYes || by_name.tensor_core == TensorCoreUse::kNo;
      if (name_known && (by_name.tensor_core == TensorCoreUse::kYes) != *busy) {
        analysis.disagreements.push_back({row.kernel, by_name, *busy ? TensorCoreUse::kYes : TensorCoreUse::kNo,
                                          row.tensor_active.value_or(*busy ? 1.0 : 0.0), row.time_ns, row.basis});
      }
    }
    analysis.kernels.push_back(std::move(row));
  }
  std::sort(analysis.kernels.begin(), analysis.kernels.end(), [](const KernelCounterRow& a, const KernelCounterRow& b) {
    if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
    if (a.ranges != b.ranges) return a.ranges > b.ranges;
    return a.kernel < b.kernel;
  });
  std::stable_sort(analysis.disagreements.begin(), analysis.disagreements.end(),
                   [](const VerdictDisagreement& a, const VerdictDisagreement& b) { return a.time_ns > b.time_ns; });

  // The measured counterpart of the Tensor Core time.
  MeasuredTensorCores& measured = analysis.tensor_cores;
  double weighted = 0.0;
  std::set<std::string> metrics(sampled.metrics.begin(), sampled.metrics.end());
  for (const KernelCounterRow& row : analysis.kernels) {
    if (row.source == MeasurementSource::kPerKernel) metrics.insert(row.basis);
  }
  measured.metrics.assign(metrics.begin(), metrics.end());
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    if (!gpu.onGpu(kernel)) continue;
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    measured.kernel_time_ns += duration;
    const float share = analysis.tensor_active_by_kernel[k];
    if (!std::isnan(share)) {
      measured.covered_ns += duration;
      weighted += share * static_cast<double>(duration);
    }
    if (const auto verdict = out.verdicts.find(kernel.name); verdict != out.verdicts.end()) {
      if (verdict->second.tensor_core == TensorCoreUse::kYes) measured.tensor_core_ns += duration;
      else measured.idle_ns += duration;
    }
  }
  if (measured.covered_ns > 0) measured.active_share = weighted / static_cast<double>(measured.covered_ns);
  analysis.series = seriesOf(trace);
  return out;
}

}  // namespace ampscope::analyzer
