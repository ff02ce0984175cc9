#include "reports/svg_charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

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

std::string stackedRowsChart(const std::vector<StackedRow>& rows, double max_value, double width) {
  const double label_width = width * 0.16;
  const double value_width = width * 0.14;
  const double track = width - label_width - value_width;
  const double legend_y = 12.0 + static_cast<double>(rows.size()) * kRowHeight;
  const double height = legend_y + 28.0;
  std::string svg = fmt::format(R"(<svg class="chart" viewBox="0 0 {0} {1:.0f}" role="img" aria-label="per-rank step">)",
                                width, height);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StackedRow& row = rows[i];
    const double y = 4.0 + static_cast<double>(i) * kRowHeight;
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" class="label" text-anchor="end"{}>{}</text>)", label_width - 10.0,
                       y + kBarHeight - 3.0, row.marked ? R"( font-weight="700")" : "",
                       escapeHtml(shortLabel(row.label, label_width - 10.0)));
    double x = label_width;
    for (std::size_t p = 0; p < row.parts.size(); ++p) {
      const ChartBar& part = row.parts[p];
      const double w = max_value > 0.0 ? finiteOrZero(part.value) / max_value * track : 0.0;
      svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"><title>{}: {}</title></rect>)",
                         x, y, w, kBarHeight, part.color.empty() ? paletteColor(p) : part.color,
                         escapeHtml(row.label + " " + part.label), escapeHtml(part.value_text));
      x += w;
    }
    if (row.marked) {
      svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="none" stroke="#1f2933" stroke-width="2"/>)",
                         label_width, y, x - label_width, kBarHeight);
    }
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="value">{}</text>)", x + 8.0, y + kBarHeight - 3.0,
                       escapeHtml(row.value_text));
  }
  if (!rows.empty()) {
    double lx = label_width;
    for (std::size_t p = 0; p < rows.front().parts.size(); ++p) {
      const ChartBar& part = rows.front().parts[p];
      svg += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="14" height="14" rx="2" fill="{}"/>)", lx, legend_y,
                         part.color.empty() ? paletteColor(p) : part.color);
      svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" class="legend">{}</text>)", lx + 20.0, legend_y + 12.0,
                         escapeHtml(part.label));
      lx += 40.0 + kCharWidth * static_cast<double>(part.label.size());
    }
  }
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

namespace ampscope::reports {

bool allBarsZero(const std::vector<ChartBar>& bars) {
  return std::none_of(bars.begin(), bars.end(), [](const ChartBar& bar) { return finiteOrZero(bar.value) > 0.0; });
}

namespace {

// A log-scale axis over whole decades, so every gridline is a round number.
struct LogAxis {
  double low_decade = 0.0;   // log10 of the first gridline
  double high_decade = 1.0;  // log10 of the last
  double from = 0.0;         // in viewBox units
  double to = 1.0;

  double at(double value) const {
    return from + (std::log10(value) - low_decade) / (high_decade - low_decade) * (to - from);
  }
};

LogAxis logAxis(double low, double high, double from, double to) {
  LogAxis axis;
  axis.low_decade = std::floor(std::log10(low));
  axis.high_decade = std::max(axis.low_decade + 1.0, std::ceil(std::log10(high)));
  axis.from = from;
  axis.to = to;
  return axis;
}

std::string decadeText(double decade) {
  const double value = std::pow(10.0, decade);
  if (decade >= 6) return fmt::format("1e{:.0f}", decade);
  if (decade >= 3) return fmt::format("{:.0f}k", value / 1e3);
  if (decade >= 0) return fmt::format("{:.0f}", value);
  if (decade >= -3) return fmt::format("{:.{}f}", value, static_cast<int>(-decade));
  return fmt::format("1e{:.0f}", decade);
}

bool positive(double value) { return std::isfinite(value) && value > 0.0; }

}  // namespace

std::string rooflineChart(const RooflineChart& chart, double width) {
  std::vector<const RooflinePoint*> points;
  for (const RooflinePoint& p : chart.points) {
    if (positive(p.intensity) && positive(p.tflops)) points.push_back(&p);
  }
  std::vector<const RooflineRoof*> roofs;
  for (const RooflineRoof& roof : chart.roofs) {
    if (positive(roof.tflops)) roofs.push_back(&roof);
  }
  const bool memory_roof = positive(chart.memory_gbs);
  // The ranges cover every dot and where each roof meets the memory slope (its ridge point).
  double x_low = std::numeric_limits<double>::max();
  double x_high = 0.0;
  double y_low = std::numeric_limits<double>::max();
  double y_high = 0.0;
  double max_weight = 0.0;
  for (const RooflinePoint* p : points) {
    x_low = std::min(x_low, p->intensity);
    x_high = std::max(x_high, p->intensity);
    y_low = std::min(y_low, p->tflops);
    y_high = std::max(y_high, p->tflops);
    max_weight = std::max(max_weight, finiteOrZero(p->weight));
  }
  double top_roof = 0.0;
  for (const RooflineRoof* roof : roofs) {
    top_roof = std::max(top_roof, roof->tflops);
    y_high = std::max(y_high, roof->tflops);
    y_low = std::min(y_low, roof->tflops);
    if (memory_roof) {
      const double ridge = roof->tflops * 1e3 / chart.memory_gbs;
      x_low = std::min(x_low, ridge);
      x_high = std::max(x_high, ridge);
    }
  }
  if (x_high <= 0.0 || y_high <= 0.0) {
    return R"(<svg class="chart" viewBox="0 0 600 30" role="img"><text x="0" y="20" class="muted">nothing to chart</text></svg>)";
  }
  // Room on the right of the last ridge, so the flat roofs read as flat.
  x_high *= 3.0;
  x_low /= 2.0;

  constexpr double kLeft = 64.0;
  constexpr double kRight = 210.0;  // roof labels
  constexpr double kTop = 16.0;
  constexpr double kPlotHeight = 380.0;
  const double plot_right = width - kRight;
  const double plot_bottom = kTop + kPlotHeight;
  const double legend_y = plot_bottom + 62.0;
  const double height = legend_y + 14.0;
  const LogAxis x = logAxis(x_low, x_high, kLeft, plot_right);
  const LogAxis y = logAxis(y_low, y_high * 1.2, plot_bottom, kTop);

  std::string svg = fmt::format(R"(<svg class="chart roofline" viewBox="0 0 {:.0f} {:.0f}" role="img" aria-label="{}">)",
                                width, height, escapeHtml(chart.title));
  // Decade gridlines with their values.
  for (double d = x.low_decade; d <= x.high_decade + 1e-9; d += 1.0) {
    const double px = x.at(std::pow(10.0, d));
    svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.0f}" x2="{0:.1f}" y2="{2:.0f}" class="grid"/>)", px, kTop, plot_bottom);
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.0f}" text-anchor="middle" class="muted">{}</text>)", px,
                       plot_bottom + 18.0, decadeText(d));
  }
  for (double d = y.low_decade; d <= y.high_decade + 1e-9; d += 1.0) {
    const double py = y.at(std::pow(10.0, d));
    svg += fmt::format(R"(<line x1="{0:.0f}" y1="{1:.1f}" x2="{2:.0f}" y2="{1:.1f}" class="grid"/>)", kLeft, py, plot_right);
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" text-anchor="end" class="muted">{}</text>)", kLeft - 8.0,
                       py + 4.0, decadeText(d));
  }
  svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" text-anchor="middle">arithmetic intensity (FLOP/byte, log scale)</text>)",
                     (kLeft + plot_right) / 2.0, plot_bottom + 40.0);
  svg += fmt::format(R"~(<text x="14" y="{:.0f}" text-anchor="middle" transform="rotate(-90 14 {:.0f})">achieved TFLOP/s (log scale)</text>)~",
                     (kTop + plot_bottom) / 2.0, (kTop + plot_bottom) / 2.0);

  // The roofs: the memory slope up to the highest peak, each peak flat from its ridge point on.
  // Every roof and dot lies inside the axes' ranges by construction: nothing needs clipping.
  if (memory_roof && top_roof > 0.0) {
    // The slope starts at the left edge, or where it rises out of the bottom edge.
    const double start = std::max(std::pow(10.0, x.low_decade), std::pow(10.0, y.low_decade) * 1e3 / chart.memory_gbs);
    const double ridge = top_roof * 1e3 / chart.memory_gbs;
    const double x1 = x.at(start);
    const double y1 = y.at(start * chart.memory_gbs / 1e3);
    const double x2 = x.at(ridge);
    const double y2 = y.at(top_roof);
    svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="roof" stroke="#52606d"><title>{}</title></line>)",
                       x1, y1, x2, y2, escapeHtml(chart.memory_label));
  }
  for (const RooflineRoof* roof : roofs) {
    const double ridge = memory_roof ? roof->tflops * 1e3 / chart.memory_gbs : std::pow(10.0, x.low_decade);
    svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="roof" stroke="{}"><title>{}</title></line>)",
                       x.at(ridge), y.at(roof->tflops), plot_right, y.at(roof->tflops), roof->color,
                       escapeHtml(roof->label));
  }
  for (const RooflineRoof* roof : roofs) {
    svg += fmt::format(R"(<text x="{:.0f}" y="{:.1f}" fill="{}">{}</text>)", plot_right + 8.0, y.at(roof->tflops) + 4.0,
                       roof->color, escapeHtml(roof->label));
  }
  if (memory_roof && top_roof > 0.0) {
    // The memory roof's label sits on its slope, low on the left where no flat roof crowds it.
    const double start = std::max(std::pow(10.0, x.low_decade), std::pow(10.0, y.low_decade) * 1e3 / chart.memory_gbs);
    const double at = std::pow(10.0, std::log10(start) + 0.3 * (std::log10(top_roof * 1e3 / chart.memory_gbs) - std::log10(start)));
    const double lx = x.at(at);
    const double ly = y.at(at * chart.memory_gbs / 1e3);
    const double angle = std::atan2(y.at(at * 10.0 * chart.memory_gbs / 1e3) - ly, x.at(at * 10.0) - lx) * 180.0 / 3.14159265358979;
    if (ly < plot_bottom - 8.0) {
      svg += fmt::format(R"~(<text x="{0:.1f}" y="{1:.1f}" transform="rotate({2:.1f} {0:.1f} {1:.1f})" class="muted">{3}</text>)~",
                         lx, ly - 6.0, angle, escapeHtml(chart.memory_label));
    }
  }

  // Heaviest first, so the small dots stay visible on top of the large ones.
  std::stable_sort(points.begin(), points.end(),
                   [](const RooflinePoint* a, const RooflinePoint* b) { return a->weight > b->weight; });
  for (const RooflinePoint* p : points) {
    const double share = max_weight > 0.0 ? finiteOrZero(p->weight) / max_weight : 0.0;
    const double radius = 3.0 + 11.0 * std::sqrt(share);  // area by time
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}" class="dot"><title>{}</title></circle>)",
                       x.at(p->intensity), y.at(p->tflops), radius, p->color.empty() ? paletteColor(0) : p->color,
                       escapeHtml(p->tooltip));
  }
  svg += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="{:.0f}" height="{:.0f}" class="frame"/>)", kLeft, kTop,
                     plot_right - kLeft, kPlotHeight);
  double lx = kLeft;
  for (const RooflineLegendEntry& entry : chart.legend) {
    svg += fmt::format(R"(<circle cx="{:.0f}" cy="{:.0f}" r="6" fill="{}"/><text x="{:.0f}" y="{:.0f}">{}</text>)",
                       lx + 6.0, legend_y - 4.0, entry.color, lx + 16.0, legend_y, escapeHtml(entry.label));
    lx += 40.0 + static_cast<double>(entry.label.size()) * kCharWidth;
  }
  svg += "</svg>";
  return svg;
}

}  // namespace ampscope::reports
