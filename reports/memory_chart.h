#pragma once
// report.html's memory chart: one device's allocated (and reserved, where recorded) bytes over
// time as an inline SVG, its steps shaded and its peak marked.

#include <string>

#include "analyzer/correlate/iterations.h"
#include "analyzer/memory/memory_analysis.h"
#include "reports/svg_charts.h"

namespace ampscope::reports {

// A long timeline is thinned to the plot's width (thinMemoryTimeline), so the page stays small and
// every column's extremes, the peak among them, stay drawn.
std::string memoryTimelineChart(const analyzer::DeviceMemory& device, const analyzer::IterationSummary& iterations,
                                double width = kFullChartWidth);

}  // namespace ampscope::reports
