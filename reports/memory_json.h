#pragma once
// The `memory` object of report.json and `ampscope analyze --json` (docs/analyze_json.md):
// the primary device's peak and its breakdown, every device's figures and timeline, and the AMP
// projection; null when the trace has no memory events.

#include <cstddef>

#include <nlohmann/json.hpp>

#include "analyzer/memory/memory_analysis.h"

namespace ampscope::reports {

// top: how many layers of each breakdown to keep (the analyze command's --top); the timeline,
// the categories and the steps are always whole.
nlohmann::ordered_json memoryJson(const analyzer::MemoryAnalysis& memory, std::size_t top);

}  // namespace ampscope::reports
