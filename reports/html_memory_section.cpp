#include "reports/html_memory_section.h"

#include <fmt/format.h>

#include "reports/memory_chart.h"
#include "reports/memory_view.h"
#include "reports/report_file.h"
#include "reports/svg_charts.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

std::string categoriesTable(const std::vector<analyzer::CategoryBytes>& categories, std::int64_t peak_bytes) {
  std::string html = R"(<table><tr><th>Category</th><th class="n">Bytes</th><th class="n">Share</th></tr>)";
  for (const analyzer::CategoryBytes& c : categories) {
    html += fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td></tr>)",
                        escapeHtml(memoryCategoryLabel(c.category)), escapeHtml(formatBytes(c.bytes)),
                        escapeHtml(shareOfPeak(c.bytes, peak_bytes)));
  }
  return html + "</table>";
}

std::string layersTable(const std::vector<analyzer::LayerBytes>& layers, std::size_t top, std::int64_t peak_bytes) {
  std::string html = R"(<table><tr><th>Layer</th><th>Pass</th><th class="n">Bytes</th><th class="n">Share</th><th class="n">Blocks</th></tr>)";
  for (const analyzer::LayerBytes& layer : firstN(layers, top)) {
    html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>)",
                        escapeHtml(memoryLayerLabel(layer)), trace::phaseName(layer.pass), escapeHtml(formatBytes(layer.bytes)),
                        escapeHtml(shareOfPeak(layer.bytes, peak_bytes)), layer.blocks);
  }
  html += "</table>";
  if (layers.size() > top) html += fmt::format(R"(<p class="note">{} more in memory_peak.csv.</p>)", layers.size() - top);
  return html;
}

std::string ampProjection(const analyzer::AmpMemoryProjection& amp, const char* title) {
  std::string html = fmt::format(R"(<h3>{} (a projection)</h3><p>{}.</p>)", title, escapeHtml(ampMemoryText(amp)));
  if (!amp.applies || amp.measured_by_category.empty()) return html;
  html += R"(<table class="half"><tr><th>Category</th><th class="n">Measured</th><th class="n">Projected</th></tr>)";
  for (const analyzer::CategoryBytes& measured : amp.measured_by_category) {
    std::string projected = "-";
    for (const analyzer::CategoryBytes& p : amp.projected_by_category) {
      if (p.category == measured.category) projected = formatBytes(p.bytes);
    }
    html += fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td></tr>)",
                        escapeHtml(memoryCategoryLabel(measured.category)), escapeHtml(formatBytes(measured.bytes)),
                        escapeHtml(projected));
  }
  return html + "</table>";
}

}  // namespace

std::string memorySection(const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::MemoryAnalysis& memory = s.memory;
  const analyzer::DeviceMemory* d = memory.primaryDevice();
  if (!d) {
    return R"(<section><h2>Memory</h2><p class="muted">The trace records no memory events (PyTorch: )"
           R"(torch.profiler.profile(profile_memory=True)).</p></section>)";
  }
  std::string html = fmt::format("<section><h2>Memory on {}</h2>", escapeHtml(memoryDeviceLabel(*d)));
  html += fmt::format(R"(<p>Peak <b>{}</b> allocated{}, reserved {}, {}.</p><p class="note">{}; {} event{}.</p>)",
                      escapeHtml(formatBytes(d->peak_allocated_bytes)),
                      d->capacity_bytes > 0 ? fmt::format(" of {}", escapeHtml(formatBytes(static_cast<std::int64_t>(d->capacity_bytes))))
                                            : std::string(),
                      d->peak_reserved_bytes < 0 ? std::string("unknown (not recorded)") : escapeHtml(formatBytes(d->peak_reserved_bytes)),
                      escapeHtml(memoryPeakWhenText(*d, s.iterations)), escapeHtml(memoryBasisText(*d)), d->events,
                      d->events == 1 ? "" : "s");
  html += memoryTimelineChart(*d, s.iterations);
  html += R"(<div class="grid2"><div><h3>At the peak by category</h3>)";
  html += d->peak_by_category.empty() ? std::string(R"(<p class="muted">Not broken down.</p>)")
                                      : categoriesTable(d->peak_by_category, d->peak_allocated_bytes);
  html += R"(<p class="note">Categories but slack and before-recording are inferred from when each block was allocated and freed.</p>)";
  html += fmt::format(R"(</div><div><h3>Live at the peak by layer (top {})</h3>)", top);
  html += d->peak_by_layer.empty() ? std::string(R"(<p class="muted">No allocating op known.</p>)")
                                   : layersTable(d->peak_by_layer, top, d->peak_allocated_bytes);
  html += "</div></div>";
  if (!d->steps.empty()) {
    html += R"(<h3>Per step</h3><table class="half"><tr><th>Step</th><th class="n">Peak allocated</th>)"
            R"(<th class="n">Saved for backward</th></tr>)";
    for (const analyzer::StepMemory& step : d->steps) {
      html += fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td></tr>)", step.number,
                          escapeHtml(formatBytes(step.peak_allocated_bytes)), escapeHtml(formatBytes(step.saved_for_backward_bytes)));
    }
    html += R"(</table><p class="note">Saved for backward: allocated in the step's forward and freed in its backward (inferred).</p>)";
  }
  if (!d->saved_for_backward_by_layer.empty()) {
    html += "<h3>Saved for backward by layer, in the peak's step</h3>" +
            layersTable(d->saved_for_backward_by_layer, top, d->peak_allocated_bytes);
  }
  html += ampProjection(memory.amp, "Under AMP");
  if (memory.master_weights.applies) html += ampProjection(memory.master_weights, "As a half model with FP32 master weights");
  for (const analyzer::DeviceMemory& other : memory.devices) {
    if (&other == d) continue;
    html += fmt::format(R"(<p class="note">{}: peak {} allocated, {} ({}).</p>)", escapeHtml(memoryDeviceLabel(other)),
                        escapeHtml(formatBytes(other.peak_allocated_bytes)), escapeHtml(memoryPeakWhenText(other, s.iterations)),
                        analyzer::memoryTotalsName(other.totals));
  }
  return html + "</section>";
}

}  // namespace ampscope::reports
