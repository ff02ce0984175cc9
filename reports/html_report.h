#pragma once
// report.html: one self-contained page (inline CSS and SVG, no script, no network) that a person
// can open from a mail attachment or a CI artifact and read top to bottom: the headline numbers,
// what to change, where the step goes, what AMP could give, and the evidence tables.

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/recommendations.h"
#include "analyzer/trace_summary.h"
#include "trace/result.h"

namespace ampscope::reports {

std::string htmlReport(const analyzer::TraceSummary& summary,
                       const std::vector<analyzer::Recommendation>& recommendations);
trace::Status writeHtmlReport(const analyzer::TraceSummary& summary,
                              const std::vector<analyzer::Recommendation>& recommendations,
                              const std::filesystem::path& dir);

}  // namespace ampscope::reports
