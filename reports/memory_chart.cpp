#include "reports/memory_chart.h"

#include <algorithm>

#include <fmt/format.h>

#include "reports/memory_view.h"
#include "reports/report_file.h"

namespace ampscope::reports {

namespace {

constexpr double kLeft = 78.0;   // room for the byte labels
constexpr double kRight = 16.0;
constexpr double kTop = 26.0;    // room for the legend
constexpr double kPlotHeight = 240.0;
constexpr double kBottom = 28.0;  // room for the time labels
constexpr const char* kAllocatedColor = "#4e79a7";
constexpr const char* kReservedColor = "#bab0ac";
constexpr const char* kPeakColor = "#e15759";

struct Scale {
  std::int64_t first_ns = 0;
  std::int64_t span_ns = 1;
  double max_bytes = 1.0;
  double width = 0.0;

  double x(std::int64_t ns) const {
    return kLeft + static_cast<double>(std::clamp<std::int64_t>(ns - first_ns, 0, span_ns)) /
                       static_cast<double>(span_ns) * width;
  }
  double y(std::int64_t bytes) const {
    return kTop + kPlotHeight - static_cast<double>(std::max<std::int64_t>(bytes, 0)) / max_bytes * kPlotHeight;
  }
};

// A step line: memory holds its value until the next event.
std::string stepPath(const std::vector<analyzer::MemorySample>& samples, const Scale& scale, bool reserved) {
  std::string d;
  for (const analyzer::MemorySample& sample : samples) {
    const std::int64_t bytes = reserved ? sample.reserved_bytes : sample.allocated_bytes;
    if (bytes < 0) continue;
    const double x = scale.x(sample.time_ns);
    const double y = scale.y(bytes);
    d += d.empty() ? fmt::format("M{:.1f} {:.1f}", x, y) : fmt::format("H{:.1f}V{:.1f}", x, y);
  }
  return d;
}

}  // namespace

std::string memoryTimelineChart(const analyzer::DeviceMemory& device, const analyzer::IterationSummary& iterations,
                                double width) {
  const double height = kTop + kPlotHeight + kBottom;
  std::string svg = fmt::format(R"(<svg class="chart" viewBox="0 0 {:.0f} {:.0f}" role="img" aria-label="memory over time">)",
                                width, height);
  if (device.timeline.empty()) {
    return svg + R"(<text x="0" y="24" class="muted">no memory events to draw</text></svg>)";
  }
  Scale scale;
  scale.first_ns = device.timeline.front().time_ns;
  scale.span_ns = std::max<std::int64_t>(1, device.timeline.back().time_ns - scale.first_ns);
  scale.width = width - kLeft - kRight;
  scale.max_bytes = 1.05 * static_cast<double>(std::max<std::int64_t>({device.peak_allocated_bytes, device.peak_reserved_bytes, 1}));
  // The steps, shaded alternately, numbered where there is room.
  bool odd = false;
  for (const analyzer::Iteration& step : iterations.iterations) {
    if (step.end_ns < scale.first_ns || step.start_ns > scale.first_ns + scale.span_ns) continue;
    const double x0 = scale.x(step.start_ns);
    const double x1 = scale.x(step.end_ns);
    svg += fmt::format(R"(<rect x="{:.1f}" y="{:.0f}" width="{:.1f}" height="{:.0f}" fill="{}"><title>step {}{}</title></rect>)",
                       x0, kTop, std::max(0.5, x1 - x0), kPlotHeight, odd ? "#e8edf3" : "#f3f6f9", step.number,
                       step.warmup ? " (warm-up)" : "");
    if (x1 - x0 > 48.0) {
      svg += fmt::format(R"(<text x="{:.1f}" y="{:.0f}" class="muted">step {}</text>)", x0 + 4.0, kTop + 14.0, step.number);
    }
    odd = !odd;
  }
  // Byte grid: four lines, labelled.
  for (int i = 0; i <= 4; ++i) {
    const auto bytes = static_cast<std::int64_t>(scale.max_bytes / 1.05 * i / 4.0);
    const double y = scale.y(bytes);
    svg += fmt::format(R"(<line class="grid" x1="{:.0f}" x2="{:.0f}" y1="{:.1f}" y2="{:.1f}"/>)", kLeft, kLeft + scale.width, y, y);
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" text-anchor="end" class="muted">{}</text>)", kLeft - 6.0, y + 4.0,
                       escapeHtml(formatBytes(bytes)));
  }
  for (int i = 0; i <= 4; ++i) {
    const std::int64_t ns = scale.span_ns * i / 4;
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.0f}" text-anchor="{}" class="muted">{}</text>)", scale.x(scale.first_ns + ns),
                       height - 8.0, i == 0 ? "start" : i == 4 ? "end" : "middle", escapeHtml(formatDuration(ns)));
  }
  const std::vector<analyzer::MemorySample> samples =
      thinMemoryTimeline(device.timeline, static_cast<std::size_t>(scale.width));
  const bool reserved = device.peak_reserved_bytes >= 0;
  if (reserved) {
    svg += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", stepPath(samples, scale, true), kReservedColor);
  }
  svg += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", stepPath(samples, scale, false), kAllocatedColor);
  svg += fmt::format(R"(<rect class="frame" x="{:.0f}" y="{:.0f}" width="{:.0f}" height="{:.0f}"/>)", kLeft, kTop, scale.width, kPlotHeight);
  // The peak: a dot and its figure, the label kept inside the plot.
  const double px = scale.x(device.peak_at_ns);
  const double py = scale.y(device.peak_allocated_bytes);
  const std::string peak_text = "peak " + formatBytes(device.peak_allocated_bytes);
  const bool label_left = px > kLeft + scale.width - 120.0;
  svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}"><title>{} at {}</title></circle>)", px, py, kPeakColor,
                     escapeHtml(peak_text), escapeHtml(formatDuration(device.peak_at_ns - scale.first_ns)));
  svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}">{}</text>)", label_left ? px - 8.0 : px + 8.0,
                     std::max(kTop + 12.0, py - 6.0), label_left ? "end" : "start", escapeHtml(peak_text));
  // Legend.
  svg += fmt::format(R"(<rect x="{:.0f}" y="6" width="14" height="4" fill="{}"/><text x="{:.0f}" y="13">allocated</text>)", kLeft,
                     kAllocatedColor, kLeft + 20.0);
  if (reserved) {
    svg += fmt::format(R"(<rect x="{:.0f}" y="6" width="14" height="4" fill="{}"/><text x="{:.0f}" y="13">reserved</text>)",
                       kLeft + 110.0, kReservedColor, kLeft + 130.0);
  }
  return svg + "</svg>";
}

}  // namespace ampscope::reports
