#include "reports/html_performance_sections.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/roofline_style.h"
#include "reports/svg_charts.h"

namespace ampscope::reports {

namespace {

std::string esc(std::string_view text) { return escapeHtml(text); }

std::string shortText(const std::string& text, std::size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

// Why no op can be placed on the roofline, in one line.
std::string noRooflineLine(const analyzer::TraceSummary& s) {
  const analyzer::OpPerformance& ops = s.op_performance;
  std::string why;
  if (s.recorded_on_cpu) {
    why = "recorded on the CPU, so no op has a GPU rate to place (the what-if section estimates the GPU times)";
  } else if (!ops.device.spec) {
    why = "no rate is measured without a device to measure it against: " + deviceWords(s).why;
  } else if (ops.rows.empty()) {
    why = "the trace has no op that ran GPU work";
  } else {
    why = fmt::format("none of the {} op call shapes has known FLOPs and bytes with a physical rate (shapes not "
                      "recorded, or a rate above the device's peak, which is reported unknown)",
                      ops.rows.size());
    if (!ops.note.empty()) why += "; " + ops.note;
  }
  return fmt::format(R"(<p class="note">No op has both an achieved rate and an arithmetic intensity: {}.</p>)", esc(why));
}

std::string estimateNs(const std::optional<double>& ns) {
  return ns ? formatDuration(static_cast<std::int64_t>(*ns)) : std::string("–");
}

}  // namespace

std::string rooflineSection(const analyzer::TraceSummary& s) {
  const analyzer::OpPerformance& ops = s.op_performance;
  const analyzer::DeviceSpec* device = s.recorded_on_cpu ? nullptr : ops.device.spec.get();
  RooflineChart chart;
  chart.title = device ? fmt::format("Roofline on the {} row", device->name) : std::string("Roofline");
  std::int64_t plotted_ns = 0;
  std::int64_t total_ns = 0;
  for (const analyzer::OpRow& row : ops.rows) {
    total_ns += row.time_ns;
    if (!analyzer::onRoofline(row)) continue;
    plotted_ns += row.time_ns;
    const std::string where = row.layer.empty() ? std::string() : fmt::format(" in {}", row.layer);
    chart.points.push_back(
        {*row.intensity, *row.achieved_tflops, static_cast<double>(row.time_ns), precisionColor(row.precision),
         fmt::format("{} {}{} ({}): {} at {:.3g} FLOP/byte, {} in {} calls, {}, {}-bound{}", row.op,
                     shortText(row.shapes, 120), where, trace::phaseName(row.pass), formatTflops(*row.achieved_tflops),
                     *row.intensity, formatDuration(row.time_ns), row.calls, analyzer::precisionName(row.precision),
                     analyzer::roofBoundName(row.bound),
                     row.peak_tflops > 0 ? fmt::format(", peak {}", formatTflops(row.peak_tflops)) : std::string())});
  }
  std::string html = fmt::format("<section><h2>{}</h2>", esc(chart.title));
  if (chart.points.empty() || !device) return html + noRooflineLine(s) + "</section>";

  // The roofs the analysis chose for this run (analyzer/model/roofline.h), as the GUI draws them.
  const analyzer::Roofline roofline = analyzer::rooflineOf(ops, s.recorded_on_cpu);
  chart.memory_gbs = roofline.memory_gbs;
  chart.memory_label = fmt::format("DRAM {:.0f} GB/s", roofline.memory_gbs);
  for (const analyzer::MathPrecision precision : roofline.ran_in) {
    chart.legend.push_back({analyzer::precisionName(precision), precisionColor(precision)});
  }
  for (const analyzer::RooflineRoof& roof : roofline.roofs) {
    chart.roofs.push_back({fmt::format("{} {}", roofLabel(roof), formatTflops(roof.tflops)), roof.tflops, roofColor(roof)});
  }
  html += rooflineChart(chart);
  html += fmt::format(R"(<p class="note">One dot per op call shape whose FLOPs, bytes and rate are known ({} of {}, )"
                      R"({} of {} op time); area by its GPU time, colour by the precision its kernels ran in. The )"
                      R"(roofs are the {} row's DRAM bandwidth and its dense peaks in those precisions{}. A dot far )"
                      R"(below its roof is latency- or launch-bound, or runs a slow kernel for its shape.</p>)",
                      chart.points.size(), ops.rows.size(), esc(formatDuration(plotted_ns)), esc(formatDuration(total_ns)),
                      esc(device->name), esc(projectedRoofsText(roofline)));
  return html + "</section>";
}

// Model estimates on another GPU (a CPU run's default, or --gpu): kept in a section of their own,
// never beside measured times.
std::string whatIfSection(const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::WhatIfProjection& w = s.what_if;
  if (!w.device.spec) return {};
  const std::string device = w.device.spec->name;
  std::string html = fmt::format(R"(<section class="estimate"><h2>What-if on {} (model estimates)</h2>)", esc(device));
  html += fmt::format(R"(<p class="note">{}.</p>)", esc(w.note));
  std::vector<ChartBar> bars = {
      {"FP32 (CUDA cores)", w.step_fp32_ns, formatDuration(static_cast<std::int64_t>(w.step_fp32_ns)), "#e15759"}};
  if (w.device.spec->tf32_tflops > 0) {
    bars.push_back({"TF32", w.step_tf32_ns,
                    fmt::format("{} ({})", formatDuration(static_cast<std::int64_t>(w.step_tf32_ns)),
                                w.tf32Speedup() ? formatSpeedup(*w.tf32Speedup()) : std::string("–")),
                    "#f28e2b"});
  }
  bars.push_back({"AMP (FP16/BF16)", w.step_amp_ns,
                  fmt::format("{} ({})", formatDuration(static_cast<std::int64_t>(w.step_amp_ns)),
                              w.ampSpeedup() ? formatSpeedup(*w.ampSpeedup()) : std::string("–")),
                  "#4e79a7"});
  if (allBarsZero(bars)) {
    return html + R"(<p class="note">No op's work is known, so there is no estimate: every bar would be 0.</p></section>)";
  }
  html += R"(<h3>GPU work of one step, estimated</h3><div class="half">)" +
          horizontalBarChart(bars, std::max(w.step_fp32_ns, w.step_tf32_ns), kHalfChartWidth) + "</div>";

  const WhatIfRows view = whatIfRows(s, top);
  if (!view.rows.empty()) {
    html += fmt::format(R"(<h3>Per {} and pass, per step</h3><p class="note">Estimates for {}, in model order; )"
                        R"(measured times are in the sections above and below, not here.</p>)",
                        s.layer_table.groups_operators ? "operator" : "layer", esc(view.scope));
    html += R"(<table><tr><th>Layer</th><th>Pass</th><th class="n">FP32 (est.)</th><th class="n">AMP (est.)</th>)"
            R"(<th class="n">Speedup (est.)</th><th class="n">Padding cost (est.)</th><th>Off the multiple of 8</th></tr>)";
    for (const analyzer::LayerRow* row : view.rows) {
      const bool both = row->what_if_fp32_ns && row->what_if_amp_ns && *row->what_if_amp_ns > 0;
      html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="n est">{}</td><td class="n est">{}</td>)"
                          R"(<td class="n est">{}</td><td class="n est">{}</td><td class="mono">{}</td></tr>)",
                          esc(row->layer), esc(trace::phaseName(row->pass)), esc(estimateNs(row->what_if_fp32_ns)),
                          esc(estimateNs(row->what_if_amp_ns)),
                          both ? esc(formatSpeedup(*row->what_if_fp32_ns / *row->what_if_amp_ns)) : std::string("–"),
                          // A cost only where a dimension is off the multiple: 0 there is an estimate, not a blank.
                          row->what_if_misaligned.empty()
                              ? std::string("–")
                              : esc(formatDuration(static_cast<std::int64_t>(row->what_if_padding_cost_ns))),
                          esc(dimensionsText(row->what_if_misaligned)));
    }
    html += fmt::format(R"(<tr class="op"><td>Step</td><td>all ops with known work</td><td class="n est">{}</td>)"
                        R"(<td class="n est">{}</td><td class="n est">{}</td><td></td><td></td></tr></table>)",
                        esc(formatDuration(static_cast<std::int64_t>(w.step_fp32_ns))),
                        esc(formatDuration(static_cast<std::int64_t>(w.step_amp_ns))),
                        w.ampSpeedup() ? esc(formatSpeedup(*w.ampSpeedup())) : std::string("–"));
  }
  if (view.misaligned.empty()) {
    html += R"(<p class="note">Every matrix shape with known work is a multiple of 8 in the dimensions FP16/BF16 )"
            R"(Tensor Cores tile.</p>)";
  } else {
    html += R"(<h3>Shapes off the multiple of 8 (FP16/BF16)</h3><table><tr><th>Layer</th><th>Pass</th>)"
            R"(<th>Dimensions → padded</th><th class="n">AMP time they cost per step (est.)</th></tr>)";
    for (const analyzer::LayerRow* row : view.misaligned) {
      html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="mono no">{}</td><td class="n est">{}</td></tr>)",
                          esc(row->layer), esc(trace::phaseName(row->pass)), esc(dimensionsText(row->what_if_misaligned)),
                          esc(formatDuration(static_cast<std::int64_t>(row->what_if_padding_cost_ns))));
    }
    html += "</table>";
  }
  return html + "</section>";
}

}  // namespace ampscope::reports
