#include "reports/markdown_report.h"

#include <fmt/format.h>

#include "reports/report_file.h"
#include "reports/report_rows.h"

namespace ampscope::reports {

namespace {

// A table cell: pipes would end the cell and newlines the row, so both are neutralised;
// backticks and asterisks are escaped so kernel names are not read as markup.
std::string cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out.empty() ? std::string("-") : out;
}

void appendOverview(std::string& md, const analyzer::TraceSummary& s) {
  const analyzer::IterationSummary& it = s.iterations;
  md += "## Overview\n\n| | |\n|---|---|\n";
  md += fmt::format("| Trace format | {} |\n", cell(s.format_detail.empty() ? s.format : s.format_detail));
  for (const analyzer::DeviceSummary& d : s.devices) {
    md += fmt::format("| Device {} | {} (sm {}, {} SMs), {} kernels, {} |\n", d.id, cell(d.name),
                      cell(d.compute_capability), d.sm_count, d.kernels, formatDuration(d.kernel_time_ns));
  }
  md += fmt::format("| GPU kernel time | {} (busy {} of {} span) |\n", formatDuration(s.gpu_kernel_time_ns),
                    formatDuration(s.gpu_busy_ns), formatDuration(s.trace_span_ns));
  md += fmt::format("| Tensor Core time | {} ({} of kernel time) |\n", formatDuration(s.tensor_cores.time_ns),
                    formatPercent(s.tensor_cores.fraction));
  md += fmt::format("| Iterations | {} ({} warm-up) from {} |\n", it.iterations.size(), it.warmup_count,
                    cell(it.source));
  md += fmt::format("| Steady step | {} mean, {} stddev |\n", formatDuration(it.steady_mean_ns),
                    formatDuration(it.steady_stddev_ns));
  md += fmt::format("| Exposed data loading | {} per step ({} of the step); hidden: {} |\n",
                    formatDuration(s.data_pipeline.exposed_ns_per_iteration),
                    formatPercent(s.data_pipeline.exposed_fraction), formatSpeedup(s.data_pipeline.speedup_if_hidden));
  md += fmt::format("| AMP projection | {} (ceiling {}) on {} |\n", formatSpeedup(s.amdahl.projected_speedup),
                    formatSpeedup(s.amdahl.ceiling), cell(s.amdahl.device.name));
  if (s.amdahl.replay.done) {
    md += fmt::format("| AMP at the host's recorded pace | {} (free math {}) |\n", formatSpeedup(s.amdahl.replay.speedup),
                      formatSpeedup(s.amdahl.replay_ceiling.speedup));
  }
  md += "\n";
  if (!s.amdahl.note.empty()) md += fmt::format("> {}\n\n", cell(s.amdahl.note));
}

void appendRecommendations(std::string& md, const std::vector<analyzer::Recommendation>& recs) {
  md += "## Recommendations\n\n";
  if (recs.empty()) {
    md += "None: no rule fired on this trace.\n\n";
    return;
  }
  md += "| Gain/step | % | Severity | Rule | Target | Evidence | Action |\n|---:|---:|---|---|---|---|---|\n";
  for (const analyzer::Recommendation& r : recs) {
    md += fmt::format("| {} | {:.1f}% | {} | {} | {} | {} | {} |\n", formatDuration(r.estimated_gain_ns),
                      r.estimated_gain_pct, analyzer::severityName(r.severity), cell(r.rule), cell(r.target),
                      cell(r.evidence), cell(r.action));
  }
  md += "\n";
}

void appendStepBreakdown(std::string& md, const analyzer::AmdahlProjection& amdahl) {
  if (amdahl.parts.empty()) return;
  md += "## Step breakdown\n\n| Part | Time/step | Share | Speedup under AMP |\n|---|---:|---:|---:|\n";
  for (const analyzer::StepPart& p : amdahl.parts) {
    md += fmt::format("| {} | {} | {} | {} |\n", cell(p.name), formatDuration(p.ns_per_step),
                      formatPercent(p.fraction), formatSpeedup(p.speedup));
  }
  md += "\n";
}

void appendLayers(std::string& md, const analyzer::TraceSummary& s) {
  const bool by_layer = !s.top_layers.empty();
  md += by_layer ? "## Layers\n\n| Layer | Ops" : "## Operators\n\n| Op";
  md += " | Phase | Calls | GPU time | Tensor Cores | Eligible | Precision | Violations |\n";
  md += by_layer ? "|---|---|---|---:|---:|---:|---|---|---|\n" : "|---|---|---:|---:|---:|---|---|---|\n";
  for (const LayerRow& row : layerRows(s)) {
    if (by_layer) md += fmt::format("| {} ", cell(row.layer));
    const double share = row.gpu_time_ns > 0
        ? static_cast<double>(row.tensor_core_time_ns) / static_cast<double>(row.gpu_time_ns) : 0.0;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(row.op), cell(row.phase), row.calls,
                      formatDuration(row.gpu_time_ns), formatPercent(share), cell(row.eligible),
                      cell(row.precision), cell(row.violations));
  }
  md += "\n";
}

void appendShapeChecks(std::string& md, const std::vector<analyzer::ShapeCheck>& checks) {
  if (checks.empty()) return;
  md += "## Shape checks\n\n| Op | Layer | M x N x K | Precision | Needs multiple of | Misaligned -> padded |"
        " Kernel align | GPU time |\n|---|---|---|---|---:|---|---:|---:|\n";
  for (const analyzer::ShapeCheck& c : checks) {
    md += fmt::format("| {} | {} | {} x {} x {} | {} | {} | {} | {} | {} |\n", cell(c.op), cell(c.layer), c.dims.m,
                      c.dims.n, c.dims.k, analyzer::precisionName(c.precision), c.required_multiple,
                      cell(violationText(c)), c.smallest_kernel_alignment, formatDuration(c.gpu_time_ns));
  }
  md += "\n";
}

void appendKernels(std::string& md, const analyzer::TraceSummary& s) {
  md += "## Kernels\n\n| Kernel | Calls | Time | Tensor Cores | Precision | Rule |\n|---|---:|---:|---|---|---|\n";
  for (const KernelRow& k : kernelRows(s)) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(k.name), k.calls, formatDuration(k.total_ns),
                      k.verdict.tensor_core ? "yes" : "no", analyzer::precisionName(k.verdict.precision),
                      cell(k.verdict.rule_id));
  }
  md += "\n";
}

}  // namespace

std::string markdownReport(const analyzer::TraceSummary& summary,
                           const std::vector<analyzer::Recommendation>& recommendations) {
  std::string md = "# ampscope report\n\n";
  appendOverview(md, summary);
  appendRecommendations(md, recommendations);
  appendStepBreakdown(md, summary.amdahl);
  appendLayers(md, summary);
  appendShapeChecks(md, summary.shape_checks);
  appendKernels(md, summary);
  return md;
}

trace::Status writeMarkdownReport(const analyzer::TraceSummary& summary,
                                  const std::vector<analyzer::Recommendation>& recommendations,
                                  const std::filesystem::path& dir) {
  return writeReportFile(dir, "report.md", markdownReport(summary, recommendations));
}

}  // namespace ampscope::reports
