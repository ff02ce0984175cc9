#pragma once
// The inline SVG charts of report.html. Each returns one <svg> element sized by its viewBox, so
// it scales with the page and needs no script, stylesheet or font from outside the file.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/trace_summary.h"

namespace ampscope::reports {

// Text for HTML element content and attribute values (& < > " ').
std::string escapeHtml(std::string_view text);

// One bar of a chart: a label, a value and the text printed beside the bar.
struct ChartBar {
  std::string label;
  double value = 0.0;
  std::string value_text;
  std::string color;  // CSS color; empty picks the palette's next one
};

// width is in viewBox units: pass about the width in CSS pixels the chart will get, so that its
// 13-unit text renders near 13 px instead of shrinking or growing with the column.
constexpr double kFullChartWidth = 1200.0;
constexpr double kHalfChartWidth = 580.0;

// A single bar 100% wide split into the parts (the step breakdown), with a legend.
std::string stackedBarChart(const std::vector<ChartBar>& parts, double width = kFullChartWidth);
// Horizontal bars on a shared scale of max_value (share charts pass 1.0).
std::string horizontalBarChart(const std::vector<ChartBar>& bars, double max_value,
                               double width = kFullChartWidth);

// The palette, in the order parts are coloured.
const std::string& paletteColor(std::size_t index);

}  // namespace ampscope::reports
