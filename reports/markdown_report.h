#pragma once
// report.md: the summary as Markdown tables, readable in a terminal, a pull request or a wiki.

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"
#include "trace/result.h"

namespace ampscope::reports {

std::string markdownReport(const analyzer::TraceSummary& summary,
                           const std::vector<analyzer::Recommendation>& recommendations);
trace::Status writeMarkdownReport(const analyzer::TraceSummary& summary,
                                  const std::vector<analyzer::Recommendation>& recommendations,
                                  const std::filesystem::path& dir);

}  // namespace ampscope::reports
