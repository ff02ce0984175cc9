#include "reports/html_counters_section.h"

#include <fmt/format.h>

#include "reports/counter_words.h"
#include "reports/report_file.h"
#include "reports/svg_charts.h"
#include "reports/verdict_words.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

std::string esc(std::string_view text) { return escapeHtml(text); }

const char* useClass(analyzer::TensorCoreUse use) {
  if (use == analyzer::TensorCoreUse::kYes) return "yes";
  if (use == analyzer::TensorCoreUse::kNo) return "no";
  return "muted";
}

std::string disagreementsTable(const std::vector<analyzer::VerdictDisagreement>& disagreements) {
  if (disagreements.empty()) {
    return R"(<p class="note">Where a kernel was measured, its counters agree with the verdict its name and rate gave.</p>)";
  }
  std::string html = R"(<h3>Names and counters disagree</h3><table><tr><th>Kernel</th><th>By name</th>)"
                     R"(<th>Measured</th><th class="n">Tensor pipe active</th><th class="n">GPU time</th><th>Basis</th></tr>)";
  for (const analyzer::VerdictDisagreement& d : disagreements) {
    html += fmt::format(R"(<tr><td class="mono">{}</td><td class="{}">{}</td><td class="{}">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td><td class="mono">{}</td></tr>)",
                        esc(d.kernel), useClass(d.by_name.tensor_core), esc(verdictByNameText(d.by_name)),
                        useClass(d.measured), esc(tensorCoreWords(d.measured)), esc(formatPercent(d.tensor_active)),
                        esc(formatDuration(d.time_ns)), esc(d.basis));
  }
  return html + "</table>";
}

std::string kernelsTable(const analyzer::CounterAnalysis& counters, std::size_t top) {
  if (counters.kernels.empty()) return {};
  std::string html = fmt::format(
      R"(<h3>Measured kernels</h3><table><tr><th>Kernel</th><th>Source</th><th class="n">Ranges (matched)</th>)"
      R"(<th class="n">GPU time</th><th class="n">Measured time</th><th class="n">{}</th><th>Basis</th>)"
      R"(<th>CUDA-core FP operations</th></tr>)",
      esc(kMeasuredActiveHeading));
  for (const analyzer::KernelCounterRow& row : firstN(counters.kernels, top)) {
    const std::string ranges = row.ranges > 0 ? fmt::format("{} ({})", row.ranges, row.matched) : std::string("–");
    html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td><td class="n">{}</td><td class="mono">{}</td><td>{}</td></tr>)",
                        esc(row.kernel.empty() ? std::string("(kernel not named)") : row.kernel),
                        esc(measurementSourceWords(row.source)), esc(ranges), esc(formatDuration(row.time_ns)),
                        esc(formatDuration(row.measured_ns)), esc(measuredActiveCell(row.tensor_active)), esc(row.basis),
                        row.cuda_core_ops ? esc(cudaCoreOpsText(*row.cuda_core_ops)) : std::string());
  }
  html += "</table>";
  if (counters.kernels.size() > top) {
    html += fmt::format(R"(<p class="note">{} more in counters.csv.</p>)", counters.kernels.size() - top);
  }
  return html;
}

std::string seriesList(const std::vector<analyzer::MetricSeries>& series) {
  if (series.empty()) return {};
  std::string html = R"(<h3>Sampled over time</h3><ul class="note">)";
  for (const analyzer::MetricSeries& s : series) {
    const std::int64_t span = s.points.empty() ? 0 : s.points.back().end_ns - s.points.front().start_ns;
    html += fmt::format(R"(<li><span class="mono">{}</span>: {} samples over {}</li>)", esc(seriesTrackName(s)),
                        s.points.size(), esc(formatDuration(span)));
  }
  return html + R"(</ul><p class="note">The export for Perfetto (ampscope export --perfetto) draws each as a counter track.</p>)";
}

}  // namespace

std::string countersSection(const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::CounterAnalysis& counters = s.counters;
  if (!counters.recorded()) return {};
  const analyzer::MeasuredTensorCores& measured = counters.tensor_cores;
  std::string metrics;
  for (const std::string& metric : measured.metrics) metrics += (metrics.empty() ? "" : ", ") + metric;
  std::string html = "<section><h2>Hardware counters</h2>";
  html += fmt::format(R"(<p class="note"><b>Measured Tensor Core use:</b> {}{}.</p>)", esc(measuredCoverageText(measured)),
                      metrics.empty() ? std::string() : fmt::format(R"(; read from <span class="mono">{}</span>)", esc(metrics)));
  html += disagreementsTable(counters.disagreements);
  html += kernelsTable(counters, top);
  html += seriesList(counters.series);
  return html + "</section>";
}

}  // namespace ampscope::reports
