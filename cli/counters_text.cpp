#include "cli/counters_text.h"

#include <fmt/format.h>

#include "reports/counter_words.h"
#include "reports/report_file.h"
#include "reports/view_limits.h"

namespace ampscope::cli {

using reports::formatDuration;

namespace {

std::string shorten(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

// "12 kernel names with per-kernel counters, 3 with device-wide samples, 2 sampled series".
std::string measuredWhat(const analyzer::CounterAnalysis& counters) {
  std::size_t per_kernel = 0;
  std::size_t sampled = 0;
  std::size_t other = 0;
  for (const analyzer::KernelCounterRow& row : counters.kernels) {
    if (row.source == analyzer::MeasurementSource::kPerKernel) ++per_kernel;
    else if (row.source == analyzer::MeasurementSource::kSampled) ++sampled;
    else ++other;
  }
  std::string what;
  const auto add = [&](std::size_t count, std::string_view words) {
    if (count > 0) what += fmt::format("{}{} {}", what.empty() ? "" : ", ", count, words);
  };
  add(per_kernel, per_kernel == 1 ? "kernel name measured per kernel" : "kernel names measured per kernel");
  add(sampled, sampled == 1 ? "kernel name measured by device-wide samples" : "kernel names measured by device-wide samples");
  add(other, other == 1 ? "kernel name with counters but no tensor pipe share" : "kernel names with counters but no tensor pipe share");
  add(counters.series.size(), "sampled series");
  return what;
}

}  // namespace

std::string countersHeadlineText(const analyzer::TraceSummary& s) {
  const analyzer::CounterAnalysis& counters = s.counters;
  if (!counters.recorded()) return {};
  std::string out = fmt::format("counters    {}; {}\n", measuredWhat(counters), reports::measuredCoverageText(counters.tensor_cores));
  if (!counters.disagreements.empty()) {
    out += fmt::format("            names and counters DISAGREE on {} kernel{} (Hardware counters below)\n",
                       counters.disagreements.size(), counters.disagreements.size() == 1 ? "" : "s");
  }
  return out;
}

std::string countersToText(const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::CounterAnalysis& counters = s.counters;
  if (!counters.recorded()) return {};
  std::string out = "\nHardware counters (measured Tensor Core use; docs/hardware_counters.md)\n";
  std::string metrics;
  for (const std::string& metric : counters.tensor_cores.metrics) metrics += (metrics.empty() ? "" : ", ") + metric;
  out += fmt::format("  {}\n", reports::measuredCoverageText(counters.tensor_cores));
  if (!metrics.empty()) out += fmt::format("  read from {}\n", metrics);
  // The disagreements first: each is a verdict the names got wrong, or the counters did.
  for (const analyzer::VerdictDisagreement& d : counters.disagreements) {
    out += fmt::format("  DISAGREE    {}\n", reports::disagreementText(d, 80));
  }
  if (!counters.kernels.empty()) {
    out += fmt::format("  {:>11} {:>11} {:>8} {:>9}  {:<20} {}\n", "GPU time", "measured", "active", "ranges", "source",
                       "kernel");
    for (const analyzer::KernelCounterRow& row : reports::firstN(counters.kernels, top)) {
      const std::string active = reports::measuredActiveCell(row.tensor_active);
      out += fmt::format("  {:>11} {:>11} {:>8} {:>9}  {:<20} {}\n", formatDuration(row.time_ns),
                         formatDuration(row.measured_ns), active.empty() ? "-" : active,
                         // Samples are not ranges: "-" rather than "0/0".
                         row.ranges > 0 ? fmt::format("{}/{}", row.matched, row.ranges) : std::string("-"),
                         reports::measurementSourceWords(row.source),
                         row.kernel.empty() ? std::string("(kernel not named)") : shorten(row.kernel, 70));
      // Instruction counts say what CUDA cores did, not Tensor Cores: under the kernel, apart.
      if (row.cuda_core_ops) {
        out += fmt::format("  {:>66}CUDA-core FP operations: {}\n", "", reports::cudaCoreOpsText(*row.cuda_core_ops));
      }
    }
    if (counters.kernels.size() > top) {
      out += fmt::format("  ... {} more in --json and counters.csv\n", counters.kernels.size() - top);
    }
  }
  for (const analyzer::MetricSeries& series : counters.series) {
    const std::int64_t span = series.points.empty() ? 0 : series.points.back().end_ns - series.points.front().start_ns;
    out += fmt::format("  sampled     {}: {} samples over {}\n", reports::seriesTrackName(series), series.points.size(),
                       formatDuration(span));
  }
  for (const auto& [reason, count] : counters.not_understood) {
    const auto place = counters.first_place.find(reason);
    out += fmt::format("  NOT used    {:>8}  {}{}\n", count, reason,
                       place == counters.first_place.end() ? std::string() : fmt::format("; first at {}", place->second));
  }
  return out;
}

}  // namespace ampscope::cli
