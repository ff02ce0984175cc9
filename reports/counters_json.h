#pragma once
// The hardware counters in report.json and `ampscope analyze --json` (docs/analyze_json.md): the
// `counters` object (per kernel name each metric's total, the measured tensor pipe share and what
// it rests on; the sampled series summarised; the disagreements between names and counters) and
// `tensor_cores.measured` (the measured share and the kernel time it covers). Formatting only:
// the figures are the analysis's (analyzer/counters/counter_analysis.h).

#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

#include "analyzer/counters/counter_analysis.h"

namespace ampscope::reports {

// null when the trace recorded no counters (and none was refused). top: how many kernel rows to
// keep (the analyze command's --top); the disagreements and the series are always whole.
nlohmann::ordered_json countersJson(const analyzer::CounterAnalysis& counters, std::size_t top);

// tensor_cores.measured: always an object, so that a share of null ("unknown") comes with the
// time it covers (0 ns).
nlohmann::ordered_json measuredTensorCoresJson(const analyzer::MeasuredTensorCores& measured);

// A measured share as JSON: the number, or null where nothing was measured.
nlohmann::ordered_json measuredShareJson(const std::optional<double>& share);

}  // namespace ampscope::reports
