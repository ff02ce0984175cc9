#pragma once
// The inline SVG charts of report.html. Each returns one <svg> element sized by its viewBox, so
// it scales with the page and needs no script, stylesheet or font from outside the file.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/summary/trace_summary.h"

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

// One bar per row, each split into parts on a shared scale of max_value (per-rank step bars);
// a marked row is drawn with a dark outline and its label in bold (the straggler). The legend
// takes the part labels and colours of the first row.
struct StackedRow {
  std::string label;
  std::vector<ChartBar> parts;
  std::string value_text;  // printed after the bar
  bool marked = false;
};
std::string stackedRowsChart(const std::vector<StackedRow>& rows, double max_value, double width = kFullChartWidth);

// True when no bar has a positive, finite value: such a chart draws nothing, and the page says so
// in a line instead.
bool allBarsZero(const std::vector<ChartBar>& bars);

// A roofline: achieved TFLOP/s over arithmetic intensity (FLOP/byte), both on log scales, with
// the device's memory roof (a slope at its bandwidth) and flat roofs at its peaks.
struct RooflinePoint {
  double intensity = 0.0;  // FLOP/byte
  double tflops = 0.0;     // achieved
  double weight = 0.0;     // sizes the dot (its GPU time); the heaviest gets the largest dot
  std::string color;
  std::string tooltip;
};
struct RooflineRoof {
  std::string label;  // "FP32 15.7 TFLOP/s"
  double tflops = 0.0;
  std::string color;
};
struct RooflineLegendEntry {
  std::string label;
  std::string color;
};
struct RooflineChart {
  std::string title;        // names the device row
  double memory_gbs = 0.0;  // the memory roof's bandwidth, GB/s
  std::string memory_label;
  std::vector<RooflineRoof> roofs;
  std::vector<RooflinePoint> points;  // points without a positive, finite position are not drawn
  std::vector<RooflineLegendEntry> legend;
};
std::string rooflineChart(const RooflineChart& chart, double width = kFullChartWidth);

// The palette, in the order parts are coloured.
const std::string& paletteColor(std::size_t index);

}  // namespace ampscope::reports
