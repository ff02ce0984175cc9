#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "reports/counter_words.h"
#include "reports/html_counters_section.h"
#include "reports/html_memory_section.h"
#include "reports/html_performance_sections.h"
#include "reports/job_rows.h"
#include "reports/layer_pass_view.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/svg_charts.h"
#include "reports/verdict_words.h"

namespace ampscope::reports {

namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2933;
 background:#f4f6f8;margin:0}
main{max-width:1320px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:18px;margin:0 0 12px}
h3{font-size:15px;margin:18px 0 8px}
.sub{color:#52606d;margin-bottom:20px}
section{background:#fff;border:1px solid #dde3ea;border-radius:8px;padding:18px 22px;margin-bottom:18px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:14px;margin-bottom:18px}
.card{background:#fff;border:1px solid #dde3ea;border-radius:8px;padding:12px 16px}
.card .k{color:#52606d;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:24px;font-weight:600;margin-top:2px}.card .d{color:#52606d;font-size:12px}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:18px}.grid2 section{margin-bottom:0}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;color:#52606d;font-weight:600;border-bottom:2px solid #dde3ea;padding:6px 8px}
td{border-bottom:1px solid #edf0f3;padding:6px 8px;vertical-align:top}
td.wrap{overflow-wrap:anywhere}
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.mono,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;overflow-wrap:anywhere}
.nowrap{white-space:nowrap}.tgt{min-width:9em}
tr.op td{background:#f8fafc;font-weight:600}tr.kern td:first-child{padding-left:24px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff}
.high{background:#d64545}.medium{background:#e8863a}.low{background:#5b8def}.info{background:#8a99a8}
.yes{color:#2f8132;font-weight:600}.no{color:#b44d12;font-weight:600}
.chart{width:100%;height:auto;display:block}
.chart text{font-size:13px;fill:#1f2933}.chart .muted,.muted{fill:#7b8794;color:#7b8794}
.chart .inbar{fill:#fff;font-weight:600}.chart .track{fill:#edf0f3}.chart .value{font-variant-numeric:tabular-nums}
.note{color:#52606d;font-size:13px;margin-top:8px}
.chart .grid{stroke:#edf0f3}.chart .frame{fill:none;stroke:#c5ced8}.chart .roof{stroke-width:2.5}
.chart .dot{fill-opacity:.7;stroke:#fff;stroke-width:1}.half{max-width:640px}
.estimate{background:#fffaf0;border-color:#f0d9a8}.estimate th{border-bottom-color:#f0d9a8}
td.est{color:#8a5a00}
)css";

std::string esc(std::string_view text) { return escapeHtml(text); }

// The style of a verdict's cell: green on Tensor Cores, red not, grey where there is no answer
// (unknown) or no question (a host op).
const char* verdictClass(analyzer::TensorCoreUse use) {
  if (use == analyzer::TensorCoreUse::kYes) return "yes";
  if (use == analyzer::TensorCoreUse::kNo) return "no";
  return "muted";
}

double ratio(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string card(std::string_view key, std::string_view value, std::string_view detail) {
  return fmt::format(R"(<div class="card"><div class="k">{}</div><div class="v">{}</div><div class="d">{}</div></div>)",
                     esc(key), esc(value), esc(detail));
}

std::string deviceCard(const analyzer::TraceSummary& s) {
  const DeviceWords words = deviceWords(s);
  return card("Device", words.row, words.why);
}

std::string mfuCard(const analyzer::TraceSummary& s) {
  const analyzer::OpPerformance& ops = s.op_performance;
  const std::string scope = performanceScope(ops);
  const std::string known = fmt::format("FLOPs known for {} of matrix time", formatPercent(ops.matrix_time_with_known_flops));
  if (ops.model_flop_utilisation) {
    return card("Model FLOP utilisation", formatPercent(*ops.model_flop_utilisation),
                fmt::format("{} {} against {}; {}", formatFlops(ops.flops_per_step), scope, utilisationPeak(ops), known));
  }
  if (s.recorded_on_cpu) {
    return card("Model FLOP utilisation", "n/a",
                ops.flops_per_step > 0 ? fmt::format("recorded on the CPU: no GPU peak; {} per step of known work",
                                                     formatFlops(ops.flops_per_step))
                                       : std::string("recorded on the CPU: no GPU peak"));
  }
  if (!s.device.spec) return card("Model FLOP utilisation", "n/a", deviceWords(s).why);
  return card("Model FLOP utilisation", "n/a", ops.note.empty() ? "no op's FLOPs are known: " + known : ops.note);
}

std::string ampCard(const analyzer::TraceSummary& s) {
  const analyzer::AmdahlProjection& amdahl = s.amdahl;
  if (!amdahl.parts.empty()) {
    std::string detail = amdahl.replay.done ? fmt::format("ceiling {}; at the host's pace {}", formatSpeedup(amdahl.ceiling),
                                                          formatSpeedup(amdahl.replay.speedup))
                                            : fmt::format("ceiling {}", formatSpeedup(amdahl.ceiling));
    if (!amdahl.per_step) detail = amdahlScope(amdahl) + "; " + detail;
    return card("AMP projection", formatSpeedup(amdahl.projected_speedup), detail);
  }
  // A CPU run (or an unknown GPU with --gpu naming another) answers with the what-if estimate.
  const analyzer::WhatIfProjection& w = s.what_if;
  if (w.device.spec && w.ampSpeedup()) {
    return card("AMP what-if (estimate)", formatSpeedup(*w.ampSpeedup()),
                fmt::format("on {}: FP32 {} → AMP {} per step, model estimates of GPU work", w.device.spec->name,
                            formatDuration(static_cast<std::int64_t>(w.step_fp32_ns)),
                            formatDuration(static_cast<std::int64_t>(w.step_amp_ns))));
  }
  return card("AMP projection", "n/a", !s.device.spec && !s.recorded_on_cpu ? deviceWords(s).why : amdahl.note);
}

std::string cards(const analyzer::TraceSummary& s) {
  const analyzer::IterationSummary& it = s.iterations;
  std::string html = R"(<div class="cards">)";
  if (it.iterations.empty()) {
    html += card("Steady step", "none found", it.source);
  } else {
    const std::string ahead = hostAheadNote(it);
    html += card("Steady step", formatDuration(it.steady_mean_ns),
                 fmt::format("{} steps, {} warm-up, ±{}{}", it.iterations.size(), it.warmup_count,
                             formatDuration(it.steady_stddev_ns), ahead.empty() ? "" : "; " + ahead));
  }
  html += deviceCard(s);
  if (s.recorded_on_cpu) {
    html += card("Tensor Core time", "n/a", "recorded on the CPU: needs a GPU run");
  } else {
    html += card("Tensor Core time", formatPercent(s.tensor_cores.fraction),
                 fmt::format("{} of {} kernel time{}", formatDuration(s.tensor_cores.time_ns),
                             formatDuration(s.gpu_kernel_time_ns), unknownTimeText(s.tensor_cores)));
  }
  html += mfuCard(s);
  html += ampCard(s);
  html += card("Exposed data loading", formatPercent(s.data_pipeline.exposed_fraction),
               fmt::format("{} per step", formatDuration(s.data_pipeline.exposed_ns_per_iteration)));
  html += card("Pipeline hidden", formatSpeedup(s.data_pipeline.speedup_if_hidden), s.recorded_on_cpu ? "if loading overlapped the host ops" : "if loading overlapped the GPU");
  return html + "</div>";
}

std::string breakdownSection(const analyzer::AmdahlProjection& amdahl) {
  std::vector<ChartBar> parts;
  for (const analyzer::StepPart& p : amdahl.parts) {
    parts.push_back({p.label(), static_cast<double>(p.ns_per_step),
                     fmt::format("{} ({}), {} under AMP", formatDuration(p.ns_per_step), formatPercent(p.fraction),
                                 formatSpeedup(p.speedup)),
                     ""});
  }
  std::string html = amdahl.per_step || amdahl.parts.empty()
                         ? std::string("<section><h2>Where the steady step goes</h2>")
                         : fmt::format("<section><h2>Where the trace's {} window of GPU work goes</h2>",
                                       esc(formatDuration(amdahl.window_ns)));
  // No projection, no split: an empty chart would read as "no steady step" when there is one.
  if (!parts.empty()) {
    html += allBarsZero(parts) ? std::string(R"(<p class="note">Every part is 0 ns: nothing to split.</p>)")
                               : stackedBarChart(parts, kHalfChartWidth);
  }
  if (!amdahl.note.empty()) {
    html += fmt::format(R"(<p class="note">{}{}</p>)", parts.empty() ? "Not split: " : "", esc(amdahl.note));
  }
  return html + "</section>";
}

std::string projectionSection(const analyzer::TraceSummary& s) {
  const bool projected = !s.amdahl.parts.empty();
  const bool window = projected && !s.amdahl.per_step;
  // The parts' span: the steady step, or without steps the trace's window of GPU work.
  const double step = projected ? static_cast<double>(s.amdahl.window_ns) : static_cast<double>(s.iterations.steady_mean_ns);
  const auto bar = [step](std::string label, double speedup, const char* color) {
    const bool finite = std::isfinite(speedup) && speedup > 0.0;
    const double projected_ns = finite ? step / speedup : 0.0;
    return ChartBar{std::move(label), projected_ns,
                    finite ? fmt::format("{} ({})", formatDuration(static_cast<std::int64_t>(projected_ns)),
                                         formatSpeedup(speedup))
                           : std::string("unbounded"),
                    color};
  };
  std::vector<ChartBar> bars = {bar(window ? "Current window" : "Current", 1.0, "#7b8794")};
  // Without a projection (a CPU run, an unknown GPU) there are no AMP bars to draw.
  if (projected) {
    bars.push_back(bar("With AMP", s.amdahl.projected_speedup, "#4e79a7"));
    bars.push_back(bar("AMP ceiling", s.amdahl.ceiling, "#a0c4e8"));
  }
  if (s.amdahl.replay.done) bars.push_back(bar("AMP at host pace", s.amdahl.replay.speedup, "#2f5f8a"));
  // Hiding the input pipeline is a per-step figure: without steps there is nothing to hide it in.
  if (!s.iterations.iterations.empty()) bars.push_back(bar("Pipeline hidden", s.data_pipeline.speedup_if_hidden, "#59a14f"));
  std::string html = window ? fmt::format("<section><h2>Projected time of the trace's {} window</h2>",
                                          esc(formatDuration(s.amdahl.window_ns)))
                            : std::string("<section><h2>Projected step time</h2>");
  if (allBarsZero(bars)) {
    return html + (projected ? R"(<p class="note">The projected span is 0 ns: every bar would be 0, so there is nothing )"
                               R"(to draw.</p></section>)"
                             : R"(<p class="note">No steady step, and no AMP projection over the trace's window (see )"
                               R"(the left): every bar would be 0, so there is nothing to draw.</p></section>)");
  }
  html += horizontalBarChart(bars, step, kHalfChartWidth);
  if (!projected) {
    // Only the pipeline bar is drawn: say what it means, not how absent AMP bars would be made.
    html += R"(<p class="note">No AMP projection for this run (see above))";
    if (s.what_if.device.spec) html += "; the what-if section below estimates one on a GPU";
    return html + R"(; pipeline hidden is the step with exposed data loading overlapped.</p></section>)";
  }
  html += fmt::format(R"(<p class="note">Amdahl projection with the {} row of the device table{}; the ceiling is )"
                      R"(the {} if eligible math took no time{}{}.</p></section>)",
                      esc(s.amdahl.device.name), window ? ", " + esc(amdahlScope(s.amdahl)) : std::string(),
                      window ? "window" : "step",
                      s.amdahl.replay.done ? "; at host pace replays the steps with AMP's kernel speedups at the host's own pace: "
                                             "the host issues work no faster than it did, but time it spent blocked by the "
                                             "GPU (synchronising, blocking copies, a full launch queue) is given back"
                                           : "",
                      s.iterations.iterations.empty() ? "" : "; pipeline hidden is the step with exposed data loading overlapped");
  return html;
}

std::string tensorCoreShareSection(const analyzer::TraceSummary& s, std::size_t top) {
  if (s.recorded_on_cpu) {
    return fmt::format(R"(<section><h2>Tensor Core share</h2><p class="note">Not applicable: recorded on {}.</p></section>)",
                       esc(kCpuRunNote));
  }
  std::vector<LayerCells> rows = layerCells(s);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LayerCells& a, const LayerCells& b) { return a.row->time_ns > b.row->time_ns; });
  if (rows.size() > top) rows.resize(top);
  std::vector<ChartBar> bars;
  for (const LayerCells& cells : rows) {
    const analyzer::LayerRow& row = *cells.row;
    const double share = ratio(row.tensor_core_time_ns, row.time_ns);
    // Eligible work entirely off Tensor Cores is the finding, so it is drawn in the warning colour;
    // a layer partly on them (attention: GEMMs on Tensor Cores, softmax not) is drawn amber.
    const char* color = share > 0.5 ? "#59a14f" : share > 0.0 ? "#f28e2b" : (row.eligible ? "#e15759" : "#bab0ac");
    const bool eligible_off = share == 0.0 && row.eligible;
    bars.push_back({fmt::format("{} ({})", row.layer, cells.phase), share,
                    fmt::format("{} of {}{}", formatPercent(share), formatDuration(row.time_ns),
                                eligible_off ? " · eligible" : ""),
                    color});
  }
  const char* what = s.layer_table.groups_operators ? "operator" : "layer";
  if (allBarsZero(bars)) {
    const std::string who = s.tensor_cores.time_ns == 0 ? fmt::format("No {}", what)
                                                        : fmt::format("None of the {} heaviest {}s", bars.size(), what);
    return fmt::format("<section><h2>Tensor Core share per {} and pass</h2><p class=\"note\">{} ran any of its work "
                       "on Tensor Cores: every bar would read 0%. The shape checks and recommendations say which "
                       "could.</p></section>",
                       what, who);
  }
  return fmt::format("<section><h2>Tensor Core share per {} and pass (top {})</h2>{}<p class=\"note\">Green: mostly on "
                     "Tensor Cores; amber: partly (the rest is other work such as softmax or normalisation); red: "
                     "eligible but none on Tensor Cores; grey: not known to be eligible.</p></section>",
                     what, top, horizontalBarChart(bars, 1.0));
}

std::string devicesSection(const analyzer::TraceSummary& s) {
  // A CPU run's "kernels" are host ops; a device that does not say its SM count shows none, not 0.
  std::string html = fmt::format(
      R"(<section><h2>Devices</h2><table><tr><th>Id</th><th>Name</th><th>Compute capability</th>)"
      R"(<th class="n">SMs</th><th class="n">{}</th><th class="n">{}</th></tr>)",
      s.recorded_on_cpu ? "Host ops" : "Kernels", s.recorded_on_cpu ? "Host op time" : "Kernel time");
  for (const analyzer::DeviceSummary& d : s.devices) {
    html += fmt::format(R"(<tr><td>{}</td><td>{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td></tr>)",
                        d.id, esc(d.name), esc(d.compute_capability),
                        d.sm_count > 0 ? std::to_string(d.sm_count) : std::string("–"), d.kernels,
                        esc(formatDuration(d.kernel_time_ns)));
  }
  html += "</table>";
  if (s.device.spec && s.device.basis == analyzer::DeviceBasis::kDerived) {
    html += fmt::format(R"(<p class="note">Rates, roofline and projection use peaks derived for the {}, which the device )"
                        R"(table has no row for: {}.</p>)",
                        esc(s.device.spec->name), esc(s.device.reason));
  } else if (s.device.spec) {
    html += fmt::format(R"(<p class="note">Rates, roofline and projection use the {} row of the device table: {}.</p>)",
                        esc(s.device.spec->name), esc(s.device.reason));
  } else if (!s.recorded_on_cpu) {
    html += fmt::format(R"(<p class="note">No row of the device table: {}.</p>)", esc(s.device.reason));
  }
  return html + "</section>";
}

std::string shapeChecksSection(std::span<const analyzer::ShapeCheck> checks, bool on_cpu) {
  std::string html = "<section><h2>Shape checks</h2>";
  if (checks.empty()) return html + R"(<p class="muted">No eligible op with recorded shapes.</p></section>)";
  html += fmt::format(R"(<table><tr><th>Op</th><th>Layer</th><th>Shapes</th><th class="n">M × N × K</th><th>Precision</th>)"
                      R"(<th>Misaligned → padded</th><th class="n">{}</th><th class="n">{}</th></tr>)",
                      on_cpu ? "Op align" : "Kernel align", on_cpu ? "Host time" : "GPU time");
  for (const analyzer::ShapeCheck& c : checks) {
    const std::string violation = violationText(c);
    html += fmt::format(
        R"(<tr><td class="mono nowrap">{}</td><td>{}</td><td class="mono">{}</td><td class="n">{} × {} × {}</td><td>{}</td>)"
        R"(<td class="{}">{}</td><td class="n">{}</td><td class="n">{}</td></tr>)",
        esc(c.op), esc(c.layer),
        esc(c.shapes) + (c.strides.empty() ? std::string()
                                           : fmt::format(R"(<br><span class="muted">strides {}{}</span>)", esc(c.strides),
                                                         esc(reports::leadingDimensionsText(c.dims)))),
        c.dims.m, c.dims.n, c.dims.k, analyzer::precisionName(c.precision),
        violation.empty() ? "yes" : "no", esc(violation.empty() ? "aligned" : violation),
        c.smallest_kernel_alignment > 0 ? fmt::format("{}", c.smallest_kernel_alignment) : std::string("–"),
        esc(formatDuration(c.gpu_time_ns)));
  }
  return html + "</table></section>";
}

// The passes of the heaviest layers, in model order.
std::string layerPassesSection(const analyzer::TraceSummary& s, std::size_t top) {
  const LayerPassView view = layerPassView(s, top);
  if (view.rows.empty()) return {};
  // With counters, the Tensor Core share the verdicts give and the tensor pipe's measured share
  // side by side; without, the table is as it always was.
  const bool measured = s.counters.recorded();
  std::string html = fmt::format(R"(<section><h2>Layers by pass</h2><p class="note">{} of the ops {} ran, )"
                                 R"(in model order.</p><table><tr><th>Layer</th><th>Pass</th>)"
                                 R"(<th class="n">Calls</th><th class="n">Time</th><th class="n">Per call</th>{}</tr>)",
                                 s.recorded_on_cpu ? "Host time" : "GPU time", esc(view.scope),
                                 measured ? fmt::format(R"(<th class="n">Tensor Cores (verdicts)</th><th class="n">{}</th>)",
                                                        esc(kMeasuredActiveHeading))
                                          : std::string());
  for (const analyzer::LayerRow* p : view.rows) {
    const std::int64_t per_call = p->calls > 0 ? p->time_ns / static_cast<std::int64_t>(p->calls) : 0;
    html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td>{}</tr>)",
                        esc(p->layer), esc(trace::phaseName(p->pass)), p->calls, esc(formatDuration(p->time_ns)),
                        esc(formatDuration(per_call)),
                        measured ? fmt::format(R"(<td class="n">{}</td><td class="n">{}</td>)",
                                               esc(formatPercent(p->tensorCoreShare())),
                                               esc(measuredActiveCell(p->measured_tensor_active)))
                                 : std::string());
  }
  return html + "</table></section>";
}

std::string ampNumericsSection(const analyzer::AmpNumerics& n) {
  if (!n.recorded) return {};
  std::string html = "<section><h2>AMP numerics</h2><table>";
  const auto row = [&](std::string_view key, const std::string& value) {
    html += fmt::format("<tr><th>{}</th><td>{}</td></tr>", esc(key), esc(value));
  };
  if (n.has_loss) {
    row("Loss", fmt::format("{:.4g} at step {} → {:.4g} at step {}", n.loss_first, n.loss_first_step, n.loss_last,
                            n.loss_last_step));
  }
  if (n.loss_scale_samples > 0) {
    row("Loss scale", fmt::format("{}; min {}, max {}, final {}", analyzer::formatLossScaleHistory(n.loss_scale_changes),
                                  n.loss_scale_min, n.loss_scale_max, n.loss_scale_final));
  }
  if (n.counted_steps > 0) {
    row("Skipped steps", fmt::format("{} of {}{}", n.skipped_steps, n.counted_steps,
                                     n.skipped.empty() ? "" : ": " + analyzer::formatStepRuns(n.skipped)));
  }
  if (n.suggested_loss_scale > 0) {
    row("Headroom", fmt::format("the largest recorded gradient fits FP16 up to a loss scale of {}", n.suggested_loss_scale));
  }
  html += "</table>";
  if (!n.tensors.empty()) {
    html += fmt::format(R"(<p class="note">Share of each tensor's gradient values that FP16 rounds to zero at the )"
                        R"(recorded loss scale, and that are zero: all steps, and {}.</p>)", esc(analyzer::recentStepsText(n)));
    html += R"(<table><tr><th>Tensor</th><th class="n">Values</th><th class="n">Underflow</th><th class="n">Last steps</th>)"
            R"(<th class="n">Zero</th><th class="n">Last steps</th><th class="n">Non-finite</th></tr>)";
    for (const analyzer::TensorNumerics& t : n.tensors) {
      html += fmt::format(R"(<tr><td class="mono">{}</td><td class="n">{}</td><td class="n">{:.3f}%</td>)"
                          R"(<td class="n">{:.3f}%</td><td class="n">{:.3f}%</td><td class="n">{:.3f}%</td>)"
                          R"(<td class="n">{}</td></tr>)",
                          esc(t.tensor), t.all.values, 100.0 * t.all.underflowShare(), 100.0 * t.recent.underflowShare(),
                          100.0 * t.all.zeroShare(), 100.0 * t.recent.zeroShare(), t.all.non_finite);
    }
    html += "</table>";
  }
  return html + "</section>";
}

// Said first: every figure below misses the work the collector lost.
std::string lostRecordsNotes(const trace::ImportStats& stats) {
  std::string html;
  for (const auto& [reason, count] : stats.lost) {
    html += fmt::format(R"(<p class="note"><b>The collector lost {} records: {}.</b></p>)", count, esc(reason));
  }
  return html;
}

// The kernel table's measured share of each GPU kernel name (KernelRow::measured_tensor_active):
// the same name under any operator has the one measurement, over all its calls.
std::map<std::string_view, std::optional<double>> measuredByKernelName(const analyzer::TraceSummary& s) {
  std::map<std::string_view, std::optional<double>> out;
  for (const analyzer::KernelRow& row : s.kernels) {
    if (row.verdict.tensor_core != analyzer::TensorCoreUse::kHost) out.emplace(row.name, row.measured_tensor_active);
  }
  return out;
}

std::string operatorsSection(const analyzer::TraceSummary& s, std::size_t top) {
  const bool cpu = s.recorded_on_cpu;
  // The measured column only where the trace recorded counters: blank where a kernel was not measured.
  const bool measured = s.counters.recorded();
  const std::map<std::string_view, std::optional<double>> measured_by_name =
      measured ? measuredByKernelName(s) : std::map<std::string_view, std::optional<double>>();
  std::string html = fmt::format(
      R"(<section><h2>Top operators and their {}</h2><table><tr><th>Operator / {}</th>)"
      R"(<th>Phase</th><th class="n">Calls</th><th class="n">{}</th><th class="n">Tensor Cores</th>{})"
      R"(<th>Precision</th><th>Rule</th></tr>)",
      cpu ? "host ops" : "kernels", cpu ? "host op" : "kernel", cpu ? "Host time" : "GPU time",
      measured ? fmt::format(R"(<th class="n">{}</th>)", esc(kMeasuredActiveHeading)) : std::string());
  const std::string blank_measured = measured ? "<td></td>" : "";
  for (const analyzer::GroupTime& op : firstN(s.operators, top)) {
    html += fmt::format(R"(<tr class="op"><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td>{}<td></td><td></td></tr>)",
                        esc(op.name), esc(op.phase), op.op_calls, esc(formatDuration(op.gpu_time_ns)),
                        // Host ops have no Tensor Core question: "n/a", not a share of 0%.
                        cpu ? std::string("n/a") : esc(formatPercent(ratio(op.tensor_core_time_ns, op.gpu_time_ns))),
                        blank_measured);
    for (const analyzer::KernelTime& k : firstN(op.kernel_times, top)) {
      std::string measured_cell;
      if (measured) {
        const auto found = measured_by_name.find(k.name);
        measured_cell = fmt::format(R"(<td class="n">{}</td>)",
                                    found == measured_by_name.end() ? std::string() : esc(measuredActiveCell(found->second)));
      }
      html += fmt::format(R"(<tr class="kern"><td class="mono">{}</td><td></td><td class="n">{}</td><td class="n">{}</td>)"
                          R"(<td class="n {}">{}</td>{}<td class="nowrap">{}</td><td class="mono nowrap">{}</td></tr>)",
                          esc(k.name), k.calls, esc(formatDuration(k.time_ns)),
                          verdictClass(k.verdict.tensor_core), tensorCoreCell(k.verdict.tensor_core), measured_cell,
                          analyzer::precisionName(k.verdict.precision),
                          esc(k.verdict.rule_id));
    }
  }
  return html + "</table></section>";
}

}  // namespace

const char* htmlStyleSheet() { return kStyle; }

std::string htmlRecommendationsSection(std::vector<analyzer::Recommendation> recs) {
  // Sorted here too: the page must read largest gain first whatever order the caller kept.
  std::stable_sort(recs.begin(), recs.end(), [](const auto& a, const auto& b) {
    return a.estimated_gain_ns > b.estimated_gain_ns;
  });
  const auto notes_begin = std::find_if(recs.begin(), recs.end(), analyzer::isNote);
  std::string html = "<section><h2>Recommendations</h2>";
  if (recs.empty()) return html + R"(<p class="muted">No rule fired on this trace.</p></section>)";
  if (notes_begin == recs.begin()) {
    html += R"(<p class="muted">Nothing with a gain to claim on this trace; the notes below say what was found.</p>)";
  } else {
    html += R"(<table><tr><th class="n">Gain / step</th><th>Severity</th><th>Rule</th><th>Target</th>)"
            R"(<th>Evidence</th><th>Action</th></tr>)";
    for (auto r = recs.begin(); r != notes_begin; ++r) {
      const char* severity = analyzer::severityName(r->severity);
      html += fmt::format(
          R"(<tr><td class="n">{}<br><span class="muted">{:.1f}%</span></td><td><span class="badge {}">{}</span></td>)"
          R"(<td class="mono nowrap">{}</td><td class="mono tgt">{}</td><td class="wrap">{}</td><td class="wrap">{}</td></tr>)",
          escapeHtml(formatDuration(r->estimated_gain_ns)), r->estimated_gain_pct, escapeHtml(severity),
          escapeHtml(severity), escapeHtml(r->rule), escapeHtml(targetWithRanks(*r)), escapeHtml(r->evidence),
          escapeHtml(r->action));
    }
    html += "</table>";
  }
  if (notes_begin != recs.end()) {
    html += R"(<h3>Notes (no gain estimated)</h3><ul class="note">)";
    for (auto r = notes_begin; r != recs.end(); ++r) {
      html += fmt::format(R"(<li><span class="mono">{}</span> {}: {}</li>)", escapeHtml(r->rule),
                          escapeHtml(targetWithRanks(*r)), escapeHtml(r->evidence));
    }
    html += "</ul>";
  }
  return html + "</section>";
}

std::string htmlReport(const analyzer::TraceSummary& summary,
                       const std::vector<analyzer::Recommendation>& recommendations, std::size_t top) {
  std::string device = summary.devices.empty() ? std::string("no device") : summary.devices.front().name;
  if (device.empty()) device = "unnamed device";
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                     "<title>ampscope report</title><style>";
  html += kStyle;
  html += "</style></head><body><main>";
  html += fmt::format(R"(<h1>ampscope report</h1><div class="sub">{} · {} · iterations from {}</div>)",
                      esc(summary.format_detail.empty() ? summary.format : summary.format_detail), esc(device),
                      esc(summary.iterations.source.empty() ? std::string("(none found)") : summary.iterations.source));
  if (summary.recorded_on_cpu) html += fmt::format(R"(<p class="note"><b>Recorded on {}.</b></p>)", esc(kCpuRunNote));
  html += lostRecordsNotes(summary.import_stats);
  html += cards(summary);
  html += htmlRecommendationsSection(recommendations);
  html += R"(<div class="grid2">)" + breakdownSection(summary.amdahl) + projectionSection(summary) + "</div><br>";
  html += whatIfSection(summary, top);
  html += rooflineSection(summary);
  html += ampNumericsSection(summary.amp_numerics);
  html += memorySection(summary, top);
  html += tensorCoreShareSection(summary, top);
  html += countersSection(summary, top);
  html += layerPassesSection(summary, top);
  html += shapeChecksSection(firstN(summary.shape_checks, top), summary.recorded_on_cpu);
  html += operatorsSection(summary, top);
  html += devicesSection(summary);
  html += "</main></body></html>\n";
  return html;
}

trace::Status writeHtmlReport(const analyzer::TraceSummary& summary,
                              const std::vector<analyzer::Recommendation>& recommendations,
                              const std::filesystem::path& dir, std::size_t top) {
  return writeReportFile(dir, "report.html", htmlReport(summary, recommendations, top));
}

}  // namespace ampscope::reports
