#pragma once
// report.md: the summary as Markdown tables, readable in a terminal, a pull request or a wiki.

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"
#include "reports/view_limits.h"
#include "trace/result.h"

namespace ampscope::reports {

// top: how many entries of each ranked list (layers, shape checks, kernels) to show.
std::string markdownReport(const analyzer::TraceSummary& summary,
                           const std::vector<analyzer::Recommendation>& recommendations, std::size_t top = kDefaultTop);
trace::Status writeMarkdownReport(const analyzer::TraceSummary& summary,
                                  const std::vector<analyzer::Recommendation>& recommendations,
                                  const std::filesystem::path& dir, std::size_t top = kDefaultTop);

}  // namespace ampscope::reports
