#include "reports/counter_words.h"

#include <fmt/format.h>

#include "reports/report_file.h"

namespace ampscope::reports {

namespace {

std::string shortened(const std::string& name, std::size_t width) {
  if (width < 4 || name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

}  // namespace

std::string measuredActiveCell(const std::optional<double>& share) {
  return share ? formatPercent(*share) : std::string();
}

std::string_view tensorCoreWords(analyzer::TensorCoreUse use) {
  switch (use.value()) {
    case analyzer::TensorCoreUse::kYes: return "on Tensor Cores";
    case analyzer::TensorCoreUse::kNo: return "not on Tensor Cores";
    case analyzer::TensorCoreUse::kHost: return "a host op";
    case analyzer::TensorCoreUse::kUnknown: break;
  }
  return "unknown";
}

std::string measuredCoverageText(const analyzer::MeasuredTensorCores& m) {
  if (m.covered_ns <= 0) {
    return fmt::format("unknown: {} ({})",
                       m.metrics.empty() ? "no tensor-pipe metric was recorded" : "no kernel's tensor pipe was measured",
                       m.kernel_time_ns > 0 ? fmt::format("0 ns of {} kernel time covered", formatDuration(m.kernel_time_ns))
                                            : std::string("the trace records no kernel time"));
  }
  const double covered = m.kernel_time_ns > 0 ? static_cast<double>(m.covered_ns) / static_cast<double>(m.kernel_time_ns)
                                              : 1.0;
  return fmt::format("tensor pipe active {} over {} of {} kernel time ({} covered): {} on Tensor Cores, {} idle",
                     formatPercent(m.active_share), formatDuration(m.covered_ns), formatDuration(m.kernel_time_ns),
                     formatPercent(covered), formatDuration(m.tensor_core_ns), formatDuration(m.idle_ns));
}

std::string verdictByNameText(const analyzer::TensorCoreVerdict& verdict) {
  std::string why = verdict.rule_id;
  why += fmt::format("{}{} confidence", why.empty() ? "" : ", ", analyzer::confidenceName(verdict.confidence));
  return fmt::format("{} ({})", tensorCoreWords(verdict.tensor_core), why);
}

std::string disagreementText(const analyzer::VerdictDisagreement& d, std::size_t name_width) {
  return fmt::format("{}: the name says {}; the counters say {}, tensor pipe {} active{}; {}",
                     shortened(d.kernel, name_width), verdictByNameText(d.by_name), tensorCoreWords(d.measured),
                     formatPercent(d.tensor_active), d.basis.empty() ? std::string() : fmt::format(" ({})", d.basis),
                     formatDuration(d.time_ns));
}

std::string_view measurementSourceWords(analyzer::MeasurementSource source) {
  switch (source) {
    case analyzer::MeasurementSource::kPerKernel: return "per-kernel ranges";
    case analyzer::MeasurementSource::kSampled: return "device-wide samples";
    case analyzer::MeasurementSource::kNone: break;
  }
  return "no tensor pipe share";
}

std::string cudaCoreOpsText(const analyzer::CudaCoreOps& ops) {
  std::string out;
  const auto add = [&](const char* precision, double operations) {
    if (operations > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", precision, formatFlops(operations));
  };
  add("FP32", ops.fp32);
  add("FP16", ops.fp16);
  add("FP64", ops.fp64);
  return out.empty() ? std::string("none") : out;
}

std::string seriesTrackName(const analyzer::MetricSeries& series) {
  return fmt::format("GPU {} · {}{}", series.device, series.metric, series.share ? " (share)" : "");
}

}  // namespace ampscope::reports
