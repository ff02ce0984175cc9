#pragma once
// report.md: the summary as Markdown tables, readable in a terminal, a pull request or a wiki.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/summary/trace_summary.h"
#include "reports/view_limits.h"
#include "trace/result.h"

namespace ampscope::reports {

// A Markdown table cell of text ("-" for none).
std::string markdownCell(std::string_view text);
// "## Recommendations": a table of the actions, then the notes (no gain) with their evidence.
std::string markdownRecommendations(const std::vector<analyzer::Recommendation>& recommendations);

// top: how many entries of each ranked list (layers, shape checks, kernels) to show.
std::string markdownReport(const analyzer::TraceSummary& summary,
                           const std::vector<analyzer::Recommendation>& recommendations, std::size_t top = kDefaultTop);
trace::Status writeMarkdownReport(const analyzer::TraceSummary& summary,
                                  const std::vector<analyzer::Recommendation>& recommendations,
                                  const std::filesystem::path& dir, std::size_t top = kDefaultTop);

}  // namespace ampscope::reports
