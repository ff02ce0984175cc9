#pragma once
// report.json, and the document behind `ampscope analyze --json`: every key of the analyze
// output under the same name (scripts depend on them: add keys, never rename), plus layers[],
// kernels_by_name[] ("kernels" already holds the counts) and recommendations[].
// Key by key: docs/analyze_json.md and docs/reports.md.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/advice/recommendations.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

// The document as text, indented by 2, ending in a newline. Names come from other tools' files and
// may hold invalid UTF-8; such bytes become U+FFFD instead of failing the whole report.
std::string formatJsonDocument(const nlohmann::ordered_json& document);

// top: how many entries of each ranked list (top_operators and their top_kernels, top_layers,
// shape_checks, kernels_by_name) to keep; nullopt keeps all (report.json). Recommendations, the
// Amdahl projection, the Tensor Core account and the model-ordered tables are always whole.
nlohmann::ordered_json summaryToJsonDocument(
    const analyzer::TraceSummary& summary,
    const std::vector<analyzer::Recommendation>& recommendations,
    std::optional<std::size_t> top = std::nullopt);

// One recommendation as report.json and the job document list it.
nlohmann::ordered_json recommendationJson(const analyzer::Recommendation& recommendation);

}  // namespace ampscope::reports
