#pragma once
// The memory analysis (analyzer/memory/memory_analysis.h) in words and in drawing points, formatted
// once so that the text, the Markdown, the HTML and the GUI say the same thing. Choosing and
// formatting only: every figure is the analysis's; nothing here sums events or decides a finding.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/memory/memory_analysis.h"
#include "reports/report_file.h"  // formatBytes

namespace ampscope::reports {

// "GPU 0 (NVIDIA H100 80GB HBM3)", "GPU 1", "host".
std::string memoryDeviceLabel(const analyzer::DeviceMemory& device);

// Where the figures come from, measured or inferred: "measured (the allocator's totals); blocks
// matched by address" or "reconstructed from the events' sizes, at least 1.2 GiB allocated before
// the first event (inferred); blocks matched by size (inferred)".
std::string memoryBasisText(const analyzer::DeviceMemory& device);

// When the peak was: "in step 12, 3.40 ms after it began", "in step 12", or "outside every step".
std::string memoryPeakWhenText(const analyzer::DeviceMemory& device, const analyzer::IterationSummary& iterations);

// A category in words: "activations", "forward temporaries", "allocator slack (reserved, not allocated)".
std::string memoryCategoryLabel(analyzer::MemoryCategory category);

// A layer of a breakdown: its name, or "(allocating op unknown)".
std::string memoryLayerLabel(const analyzer::LayerBytes& layer);

// A projection (autocast, or a half model with FP32 master weights) in a sentence or two: the
// projected peak against the measured one, and the batch that fits before and after on which
// device; or why there is none (its note).
std::string ampMemoryText(const analyzer::AmpMemoryProjection& amp);

// A share of the peak: "49.6%"; "-" when the peak is 0.
std::string shareOfPeak(std::int64_t bytes, std::int64_t peak_bytes);

// The timeline thinned for drawing `columns` columns wide (a drawing choice, never an analysis):
// the time span is cut into `columns` equal slices and each keeps its first and last sample and
// those with the least and the most allocated and reserved, in time order, so every column's
// minimum and maximum, and so the peak, stay on the chart. A timeline of at most 4 * columns
// samples comes back whole.
std::vector<analyzer::MemorySample> thinMemoryTimeline(std::span<const analyzer::MemorySample> timeline,
                                                       std::size_t columns);

}  // namespace ampscope::reports
