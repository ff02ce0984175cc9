#include "reports/svg_charts.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace ampscope::reports {

namespace {

// Chart geometry in viewBox units; the SVG scales to the column width.
constexpr double kRowHeight = 26.0;
constexpr double kBarHeight = 16.0;
// Roughly the width of one character of 13 px sans-serif, to fit labels without measuring text.
constexpr double kCharWidth = 7.2;

// Labels longer than the label column are cut; the full text stays in the tooltip (<title>).
std::string shortLabel(const std::string& label, double column_width) {
  const auto max_chars = static_cast<std::size_t>(column_width / kCharWidth);
  if (label.size() <= max_chars || max_chars < 4) return label;
  return label.substr(0, max_chars - 3) + "...";
}

double finiteOrZero(double value) { return std::isfinite(value) && value > 0.0 ? value : 0.0; }

}  // namespace

const std::string& paletteColor(std::size_t index) {
  // Tableau 10: distinguishable, print- and colour-blind-friendly enough for a handful of parts.
  static const std::array<std::string, 10> kPalette = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[index % kPalette.size()];
}

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string stackedBarChart(const std::vector<ChartBar>& parts, double width) {
  double total = 0.0;
  for (const ChartBar& part : parts) total += finiteOrZero(part.value);
  // One legend entry per line: the entries carry their numbers and are too long for columns.
  const double height = 48.0 + static_cast<double>(parts.size()) * 22.0;
  std::string svg = fmt::format(
      R"(<svg class="chart" viewBox="0 0 {0} {1:.0f}" role="img" aria-label="step breakdown">)", width, height);
  double x = 0.0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ChartBar& part = parts[i];
    const std::string& color = part.color.empty() ? paletteColor(i) : part.color;
    const double w = total > 0.0 ? finiteOrZero(part.value) / total * width : 0.0;
    svg += fmt::format(R"(<rect x="{:.1f}" y="4" width="{:.1f}" height="30" fill="{}"><title>{}: {}</title></rect>)",
                       x, w, color, escapeHtml(part.label), escapeHtml(part.value_text));
    // The share goes inside the segment only where it fits.
    if (w > 60.0) {
      svg += fmt::format(R"(<text x="{:.1f}" y="24" class="inbar">{:.0f}%</text>)", x + 6.0,
                         finiteOrZero(part.value) / total * 100.0);
    }
    x += w;
    const double lx = 0.0;
    const double ly = 60.0 + static_cast<double>(i) * 22.0;
    svg += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="14" height="14" rx="2" fill="{}"/>)", lx, ly - 12.0, color);
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" class="legend">{} <tspan class="muted">{}</tspan></text>)",
                       lx + 22.0, ly, escapeHtml(part.label), escapeHtml(part.value_text));
  }
  if (total <= 0.0) svg += R"(<text x="0" y="24" class="muted">no steady step to split</text>)";
  svg += "</svg>";
  return svg;
}

std::string horizontalBarChart(const std::vector<ChartBar>& bars, double max_value, double width) {
  const double height = static_cast<double>(std::max<std::size_t>(bars.size(), 1)) * kRowHeight + 8.0;
  const double label_width = width * 0.25;
  const double value_width = width * 0.25;
  const double track = width - label_width - value_width;
  std::string svg = fmt::format(R"(<svg class="chart" viewBox="0 0 {0} {1:.0f}" role="img">)", width, height);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& bar = bars[i];
    const double y = 4.0 + static_cast<double>(i) * kRowHeight;
    const double fraction = max_value > 0.0 ? std::min(finiteOrZero(bar.value) / max_value, 1.0) : 0.0;
    const std::string& color = bar.color.empty() ? paletteColor(0) : bar.color;
    svg += fmt::format(R"(<g><title>{}: {}</title>)", escapeHtml(bar.label), escapeHtml(bar.value_text));
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" class="label" text-anchor="end">{}</text>)", label_width - 10.0,
                       y + kBarHeight - 3.0, escapeHtml(shortLabel(bar.label, label_width - 10.0)));
    svg += fmt::format(R"(<rect x="{:.0f}" y="{:.1f}" width="{:.1f}" height="{}" rx="3" class="track"/>)", label_width,
                       y, track, kBarHeight);
    svg += fmt::format(R"(<rect x="{:.0f}" y="{:.1f}" width="{:.1f}" height="{}" rx="3" fill="{}"/>)", label_width, y,
                       fraction * track, kBarHeight, color);
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" class="value">{}</text></g>)", label_width + track + 10.0,
                       y + kBarHeight - 3.0, escapeHtml(bar.value_text));
  }
  if (bars.empty()) svg += R"(<text x="0" y="20" class="muted">nothing to chart</text>)";
  svg += "</svg>";
  return svg;
}

}  // namespace ampscope::reports
