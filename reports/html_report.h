#pragma once
// report.html: one self-contained page (inline CSS and SVG, no script, no network) that a person
// can open from a mail attachment or a CI artifact and read top to bottom: the headline numbers,
// what to change, where the step goes, what AMP could give, and the evidence tables.

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/summary/trace_summary.h"
#include "reports/view_limits.h"
#include "trace/result.h"

namespace ampscope::reports {

// top: how many entries of each ranked list (operators, kernels, shape checks, layers) to show.
std::string htmlReport(const analyzer::TraceSummary& summary,
                       const std::vector<analyzer::Recommendation>& recommendations, std::size_t top = kDefaultTop);
trace::Status writeHtmlReport(const analyzer::TraceSummary& summary,
                              const std::vector<analyzer::Recommendation>& recommendations,
                              const std::filesystem::path& dir, std::size_t top = kDefaultTop);

// The page's style sheet, shared by the job's report page.
const char* htmlStyleSheet();
// The recommendations table, largest gain first.
std::string htmlRecommendationsSection(std::vector<analyzer::Recommendation> recommendations);

}  // namespace ampscope::reports
