#include "reports/markdown_report.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "reports/job_rows.h"
#include "reports/layer_pass_view.h"
#include "reports/memory_view.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/verdict_words.h"

namespace ampscope::reports {

namespace {

std::string cell(std::string_view text) { return markdownCell(text); }

std::string modelFlopUtilisationRow(const analyzer::TraceSummary& s) {
  const analyzer::OpPerformance& ops = s.op_performance;
  const std::string known = fmt::format("FLOPs known for {} of matrix time", formatPercent(ops.matrix_time_with_known_flops));
  if (ops.model_flop_utilisation) {
    return fmt::format("| Model FLOP utilisation | {} of {} ({} {}; {}) |\n", formatPercent(*ops.model_flop_utilisation),
                       utilisationPeak(ops), formatFlops(ops.flops_per_step), performanceScope(ops), known);
  }
  if (s.recorded_on_cpu) {
    return ops.flops_per_step > 0
               ? fmt::format("| Model FLOP utilisation | n/a: recorded on the CPU ({} per step of known work) |\n",
                             formatFlops(ops.flops_per_step))
               : std::string("| Model FLOP utilisation | n/a: recorded on the CPU |\n");
  }
  if (!s.device.spec) return fmt::format("| Model FLOP utilisation | unknown: {} |\n", cell(kDeviceUnknownText));
  return fmt::format("| Model FLOP utilisation | unknown: {} |\n", cell(ops.note.empty() ? known : ops.note));
}

void appendOverview(std::string& md, const analyzer::TraceSummary& s) {
  const analyzer::IterationSummary& it = s.iterations;
  md += "## Overview\n\n| | |\n|---|---|\n";
  md += fmt::format("| Trace format | {} |\n", cell(s.format_detail.empty() ? s.format : s.format_detail));
  for (const analyzer::DeviceSummary& d : s.devices) {
    if (d.kind == trace::DeviceKind::kCpu) {
      md += fmt::format("| Device {} | {} (host CPU), {} host ops, {} |\n", d.id, cell(d.name), d.kernels,
                        formatDuration(d.kernel_time_ns));
      continue;
    }
    md += fmt::format("| Device {} | {} (sm {}, {} SMs), {} kernels, {} |\n", d.id, cell(d.name),
                      cell(d.compute_capability), d.sm_count, d.kernels, formatDuration(d.kernel_time_ns));
  }
  if (s.recorded_on_cpu) {
    md += fmt::format("| Recorded on | {} |\n", kCpuRunNote);
    md += fmt::format("| Host op time | {} (busy {} of {} span) |\n", formatDuration(s.gpu_kernel_time_ns),
                      formatDuration(s.gpu_busy_ns), formatDuration(s.trace_span_ns));
    md += "| Tensor Core time | not applicable: recorded on the CPU |\n";
  } else {
    md += fmt::format("| GPU kernel time | {} (busy {} of {} span) |\n", formatDuration(s.gpu_kernel_time_ns),
                      formatDuration(s.gpu_busy_ns), formatDuration(s.trace_span_ns));
    md += fmt::format("| Tensor Core time | {} ({} of kernel time){} |\n", formatDuration(s.tensor_cores.time_ns),
                      formatPercent(s.tensor_cores.fraction), unknownTimeText(s.tensor_cores));
  }
  for (const auto& [reason, count] : s.import_stats.lost) {
    md += fmt::format("| Lost records | the collector lost {} records: {} |\n", count, cell(reason));
  }
  md += fmt::format("| Iterations | {} ({} warm-up) from {} |\n", it.iterations.size(), it.warmup_count,
                    cell(it.source));
  const std::string ahead = hostAheadNote(it);
  md += fmt::format("| Steady step | {} mean, {} stddev{} |\n", formatDuration(it.steady_mean_ns),
                    formatDuration(it.steady_stddev_ns), ahead.empty() ? "" : "; " + ahead);
  md += fmt::format("| Exposed data loading | {} per step ({} of the step); hidden: {} |\n",
                    formatDuration(s.data_pipeline.exposed_ns_per_iteration),
                    formatPercent(s.data_pipeline.exposed_fraction), formatSpeedup(s.data_pipeline.speedup_if_hidden));
  const DeviceWords device = deviceWords(s);
  if (device.known) {
    md += fmt::format("| Device row | {}: {} |\n", cell(device.row), cell(device.why));
  } else {
    md += fmt::format("| Device row | {} |\n", cell(s.recorded_on_cpu ? "none: " + device.why : device.why));
  }
  md += modelFlopUtilisationRow(s);
  if (!s.amdahl.parts.empty()) {
    md += fmt::format("| AMP projection | {} (ceiling {}) on {}{} |\n", formatSpeedup(s.amdahl.projected_speedup),
                      formatSpeedup(s.amdahl.ceiling), cell(s.amdahl.device.name),
                      s.amdahl.per_step ? std::string() : ", " + cell(amdahlScope(s.amdahl)));
  } else if (s.what_if.device.spec && s.what_if.ampSpeedup()) {
    const analyzer::WhatIfProjection& w = s.what_if;
    md += fmt::format("| AMP what-if (model estimate) | {} on {}: FP32 {} -> AMP {} per step of GPU work |\n",
                      formatSpeedup(*w.ampSpeedup()), cell(w.device.spec->name),
                      formatDuration(static_cast<std::int64_t>(w.step_fp32_ns)),
                      formatDuration(static_cast<std::int64_t>(w.step_amp_ns)));
  }
  if (s.amdahl.replay.done) {
    md += fmt::format("| AMP at the host's recorded pace | {} (free math {}) |\n", formatSpeedup(s.amdahl.replay.speedup),
                      formatSpeedup(s.amdahl.replay_ceiling.speedup));
  }
  md += "\n";
  if (!s.amdahl.note.empty()) md += fmt::format("> {}\n\n", cell(s.amdahl.note));
}

void appendStepBreakdown(std::string& md, const analyzer::AmdahlProjection& amdahl) {
  if (amdahl.parts.empty()) return;
  if (amdahl.per_step) {
    md += "## Step breakdown\n\n| Part | Time/step | Share | Speedup under AMP |\n|---|---:|---:|---:|\n";
  } else {
    md += fmt::format("## Window breakdown\n\nNo steps found: the parts are {}.\n\n"
                      "| Part | Time in window | Share | Speedup under AMP |\n|---|---:|---:|---:|\n",
                      amdahlScope(amdahl));
  }
  for (const analyzer::StepPart& p : amdahl.parts) {
    md += fmt::format("| {} | {} | {} | {} |\n", cell(p.label()), formatDuration(p.ns_per_step),
                      formatPercent(p.fraction), formatSpeedup(p.speedup));
  }
  md += "\n";
}

std::string estimate(const std::optional<double>& ns) {
  return ns ? formatDuration(static_cast<std::int64_t>(*ns)) : std::string("-");
}

// Model estimates on another GPU, in a section of their own: never beside measured times.
void appendWhatIf(std::string& md, const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::WhatIfProjection& w = s.what_if;
  if (!w.device.spec) return;
  md += fmt::format("## What-if on {} (model estimates)\n\n{}.\n\n", cell(w.device.spec->name), cell(w.note));
  const auto speedup = [](double fp32, double other) { return other > 0 ? formatSpeedup(fp32 / other) : std::string("-"); };
  md += "| GPU work of one step (estimated) | FP32 | TF32 | AMP (FP16/BF16) | FP32 -> AMP |\n|---|---:|---:|---:|---:|\n";
  md += fmt::format("| all ops with known work | {} | {} | {} | {} |\n\n",
                    formatDuration(static_cast<std::int64_t>(w.step_fp32_ns)),
                    w.device.spec->tf32_tflops > 0 ? formatDuration(static_cast<std::int64_t>(w.step_tf32_ns)) : std::string("-"),
                    formatDuration(static_cast<std::int64_t>(w.step_amp_ns)), speedup(w.step_fp32_ns, w.step_amp_ns));
  const WhatIfRows view = whatIfRows(s, top);
  if (!view.rows.empty()) {
    md += fmt::format("Per step, estimated for {}, in model order:\n\n"
                      "| {} | Pass | FP32 (est.) | AMP (est.) | Speedup (est.) | Padding cost (est.) | Off the multiple of 8 |\n"
                      "|---|---|---:|---:|---:|---:|---|\n",
                      view.scope, s.layer_table.groups_operators ? "Op" : "Layer");
    for (const analyzer::LayerRow* row : view.rows) {
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(row->layer), trace::phaseName(row->pass),
                        estimate(row->what_if_fp32_ns), estimate(row->what_if_amp_ns),
                        row->what_if_fp32_ns && row->what_if_amp_ns ? speedup(*row->what_if_fp32_ns, *row->what_if_amp_ns)
                                                                    : std::string("-"),
                        row->what_if_misaligned.empty()
                            ? std::string("-")
                            : formatDuration(static_cast<std::int64_t>(row->what_if_padding_cost_ns)),
                        cell(dimensionsText(row->what_if_misaligned)));
    }
    md += "\n";
  }
  if (!view.misaligned.empty()) {
    md += "Shapes off the multiple of 8 that FP16/BF16 Tensor Cores want, and the AMP time they cost per step (estimated):\n\n";
    for (const analyzer::LayerRow* row : view.misaligned) {
      md += fmt::format("- {} {}: {} ({})\n", cell(row->layer), trace::phaseName(row->pass),
                        cell(dimensionsText(row->what_if_misaligned)),
                        formatDuration(static_cast<std::int64_t>(row->what_if_padding_cost_ns)));
    }
    md += "\n";
  }
}

// The heaviest rows of the layer table (each layer and pass), heaviest first.
void appendLayers(std::string& md, const analyzer::TraceSummary& s, std::size_t top) {
  const bool by_layer = !s.layer_table.groups_operators;
  std::vector<LayerCells> rows = layerCells(s);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LayerCells& a, const LayerCells& b) { return a.row->time_ns > b.row->time_ns; });
  if (rows.size() > top) rows.resize(top);
  md += by_layer ? "## Layers\n\n| Layer | Ops" : "## Operators\n\n| Op";
  md += fmt::format(" | Pass | Calls | {} | Tensor Cores | Eligible | Precision | Violations |\n",
                    s.recorded_on_cpu ? "Host time" : "GPU time");
  md += by_layer ? "|---|---|---|---:|---:|---:|---|---|---|\n" : "|---|---|---:|---:|---:|---|---|---|\n";
  for (const LayerCells& cells : rows) {
    const analyzer::LayerRow& row = *cells.row;
    if (by_layer) md += fmt::format("| {} ", cell(cells.layer));
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(cells.op), cell(cells.phase), row.calls,
                      formatDuration(row.time_ns), s.recorded_on_cpu ? "n/a (CPU)" : formatPercent(row.tensorCoreShare()),
                      cell(cells.eligible), cell(cells.precision), cell(cells.violations));
  }
  md += "\n";
}

// The passes of the heaviest layers, in model order, with the time per call.
void appendLayerPasses(std::string& md, const analyzer::TraceSummary& s, std::size_t top) {
  const LayerPassView view = layerPassView(s, top);
  if (view.rows.empty()) return;
  md += fmt::format("## Layers by pass\n\n{} of the ops {} ran, in model order.\n\n"
                    "| Layer | Pass | Calls | Time | Per call |\n|---|---|---:|---:|---:|\n",
                    s.recorded_on_cpu ? "Host time" : "GPU time", view.scope);
  for (const analyzer::LayerRow* p : view.rows) {
    const std::int64_t per_call = p->calls > 0 ? p->time_ns / static_cast<std::int64_t>(p->calls) : 0;
    md += fmt::format("| {} | {} | {} | {} | {} |\n", cell(p->layer), trace::phaseName(p->pass), p->calls,
                      formatDuration(p->time_ns), formatDuration(per_call));
  }
  md += "\n";
}

void appendAmpNumerics(std::string& md, const analyzer::AmpNumerics& n) {
  if (!n.recorded) return;
  md += "## AMP numerics\n\n| | |\n|---|---|\n";
  if (n.steps > 0) md += fmt::format("| Steps with counters | {} ({} to {}) |\n", n.steps, n.first_step, n.last_step);
  if (n.has_loss) {
    md += fmt::format("| Loss | {:.4g} at step {} -> {:.4g} at step {} |\n", n.loss_first, n.loss_first_step,
                      n.loss_last, n.loss_last_step);
  }
  if (n.loss_scale_samples > 0) {
    md += fmt::format("| Loss scale | {}; min {}, max {}, final {} |\n",
                      cell(analyzer::formatLossScaleHistory(n.loss_scale_changes)), n.loss_scale_min,
                      n.loss_scale_max, n.loss_scale_final);
  }
  if (n.counted_steps > 0) {
    md += fmt::format("| Skipped steps | {} of {}{} |\n", n.skipped_steps, n.counted_steps,
                      n.skipped.empty() ? "" : ": " + analyzer::formatStepRuns(n.skipped));
  }
  if (n.suggested_loss_scale > 0) {
    md += fmt::format("| Headroom | the largest recorded gradient fits FP16 up to a loss scale of {} |\n",
                      n.suggested_loss_scale);
  }
  md += "\n";
  if (n.tensors.empty()) return;
  md += fmt::format("Share of each tensor's gradient values that FP16 rounds to zero at the recorded loss scale, "
                    "and that are zero: over all steps and over {}.\n\n"
                    "| Tensor | Values | Underflow | Underflow, last steps | Zero | Zero, last steps | Non-finite |\n"
                    "|---|---:|---:|---:|---:|---:|---:|\n", analyzer::recentStepsText(n));
  for (const analyzer::TensorNumerics& t : n.tensors) {
    md += fmt::format("| {} | {} | {:.3f}% | {:.3f}% | {:.3f}% | {:.3f}% | {} |\n", cell(t.tensor), t.all.values,
                      100.0 * t.all.underflowShare(), 100.0 * t.recent.underflowShare(), 100.0 * t.all.zeroShare(),
                      100.0 * t.recent.zeroShare(), t.all.non_finite);
  }
  md += "\n";
}

// Short: the peak, its top categories and layers, and the AMP projection; the rest is in the HTML
// page and memory_peak.csv.
void appendMemory(std::string& md, const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::DeviceMemory* d = s.memory.primaryDevice();
  md += "## Memory\n\n";
  if (!d) {
    md += "Unknown: the trace records no memory events.\n\n";
    return;
  }
  md += fmt::format("Peak **{}** allocated on {}, reserved {}, {}; {}.\n\n", formatBytes(d->peak_allocated_bytes),
                    cell(memoryDeviceLabel(*d)),
                    d->peak_reserved_bytes < 0 ? std::string("unknown (not recorded)") : formatBytes(d->peak_reserved_bytes),
                    memoryPeakWhenText(*d, s.iterations), memoryBasisText(*d));
  if (!d->peak_by_category.empty() || !d->peak_by_layer.empty()) {
    md += "| At the peak | Bytes | Share |\n|---|---:|---:|\n";
    for (const analyzer::CategoryBytes& c : d->peak_by_category) {
      md += fmt::format("| {} | {} | {} |\n", cell(memoryCategoryLabel(c.category)), formatBytes(c.bytes),
                        shareOfPeak(c.bytes, d->peak_allocated_bytes));
    }
    for (const analyzer::LayerBytes& layer : firstN(d->peak_by_layer, top)) {
      md += fmt::format("| layer {} ({}) | {} | {} |\n", cell(memoryLayerLabel(layer)), trace::phaseName(layer.pass),
                        formatBytes(layer.bytes), shareOfPeak(layer.bytes, d->peak_allocated_bytes));
    }
    md += "\n";
  }
  md += fmt::format("AMP: {}.\n\n", cell(ampMemoryText(s.memory.amp)));
  if (s.memory.master_weights.applies) {
    md += fmt::format("Half model with FP32 master weights: {}.\n\n", cell(ampMemoryText(s.memory.master_weights)));
  }
}

void appendShapeChecks(std::string& md, std::span<const analyzer::ShapeCheck> checks, bool on_cpu) {
  if (checks.empty()) return;
  md += fmt::format("## Shape checks\n\n| Op | Layer | M x N x K | Precision | Needs multiple of | Misaligned -> padded |"
                    " {} | {} |\n|---|---|---|---|---:|---|---:|---:|\n",
                    on_cpu ? "Op align" : "Kernel align", on_cpu ? "Host time" : "GPU time");
  for (const analyzer::ShapeCheck& c : checks) {
    md += fmt::format("| {} | {} | {} x {} x {} | {} | {} | {} | {} | {} |\n", cell(c.op), cell(c.layer), c.dims.m,
                      c.dims.n, c.dims.k, analyzer::precisionName(c.precision), c.required_multiple,
                      cell(violationText(c)), c.smallest_kernel_alignment, formatDuration(c.gpu_time_ns));
  }
  md += "\n";
}

void appendKernels(std::string& md, const analyzer::TraceSummary& s, std::size_t top) {
  md += "## Kernels\n\n| Kernel | Calls | Time | Tensor Cores | Precision | Rule |\n|---|---:|---:|---|---|---|\n";
  for (const analyzer::KernelRow& k : firstN(s.kernels, top)) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(k.name), k.calls, formatDuration(k.time_ns),
                      tensorCoreCell(k.verdict.tensor_core),
                      analyzer::precisionName(k.verdict.precision),
                      cell(k.verdict.rule_id));
  }
  md += "\n";
}

}  // namespace

// Pipes would end the cell and newlines the row, so both are neutralised; backticks and asterisks
// are escaped so kernel names are not read as markup.
std::string markdownCell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out.empty() ? std::string("-") : out;
}

std::string markdownRecommendations(const std::vector<analyzer::Recommendation>& recs) {
  std::string md = "## Recommendations\n\n";
  if (recs.empty()) {
    md += "None: no rule fired on this trace.\n\n";
    return md;
  }
  bool any_action = false;
  for (const analyzer::Recommendation& r : recs) {
    if (analyzer::isNote(r)) continue;
    if (!any_action) {
      md += "| Gain/step | % | Severity | Rule | Target | Evidence | Action |\n|---:|---:|---|---|---|---|---|\n";
      any_action = true;
    }
    md += fmt::format("| {} | {:.1f}% | {} | {} | {} | {} | {} |\n", formatDuration(r.estimated_gain_ns),
                      r.estimated_gain_pct, analyzer::severityName(r.severity), cell(r.rule), cell(targetWithRanks(r)),
                      cell(r.evidence), cell(r.action));
  }
  if (!any_action) md += "Nothing with a gain to claim on this trace.\n";
  md += "\n";
  bool any_note = false;
  for (const analyzer::Recommendation& r : recs) {
    if (!analyzer::isNote(r)) continue;
    if (!any_note) {
      md += "Notes (no gain estimated):\n\n";
      any_note = true;
    }
    md += fmt::format("- `{}` {}: {}\n", r.rule, targetWithRanks(r), r.evidence);
  }
  if (any_note) md += "\n";
  return md;
}

std::string markdownReport(const analyzer::TraceSummary& summary,
                           const std::vector<analyzer::Recommendation>& recommendations, std::size_t top) {
  std::string md = "# ampscope report\n\n";
  appendOverview(md, summary);
  md += markdownRecommendations(recommendations);
  appendStepBreakdown(md, summary.amdahl);
  appendWhatIf(md, summary, top);
  appendAmpNumerics(md, summary.amp_numerics);
  appendMemory(md, summary, top);
  appendLayers(md, summary, top);
  appendLayerPasses(md, summary, top);
  appendShapeChecks(md, firstN(summary.shape_checks, top), summary.recorded_on_cpu);
  appendKernels(md, summary, top);
  return md;
}

trace::Status writeMarkdownReport(const analyzer::TraceSummary& summary,
                                  const std::vector<analyzer::Recommendation>& recommendations,
                                  const std::filesystem::path& dir, std::size_t top) {
  return writeReportFile(dir, "report.md", markdownReport(summary, recommendations, top));
}

}  // namespace ampscope::reports
