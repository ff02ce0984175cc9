#pragma once
// The report of a distributed job (`report` of several ranks, `merge --out`): report.html with the
// per-rank step bars (compute, exposed communication, data, idle; the straggler outlined), the
// ranks, their own findings (Tensor Core share, AMP and TF32 projections, largest findings) and
// collectives tables, notes and the recommendations merged across ranks; report.md, the same as
// Markdown; report.json (the job document); ranks.csv, collectives.csv, recommendations.csv (with
// the ranks each applies to), and every rank's kernels.csv, layers.csv and ops.csv rows after a
// leading rank column. Columns: docs/reports.md.

#include <cstddef>
#include <filesystem>
#include <string>

#include "analyzer/job/job_analysis.h"
#include "trace/result.h"

namespace ampscope::reports {

inline constexpr const char* kJobReportFiles =
    "report.html, report.md, report.json, ranks.csv, collectives.csv, recommendations.csv, kernels.csv, layers.csv, "
    "ops.csv";

std::string ranksCsv(const analyzer::JobAnalysis& job);
std::string jobHtmlReport(const analyzer::JobAnalysis& job, std::size_t top);
std::string jobMarkdownReport(const analyzer::JobAnalysis& job, std::size_t top);  // job_markdown.cpp

trace::Status writeJobReport(const analyzer::JobAnalysis& job, const std::filesystem::path& dir, std::size_t top);

}  // namespace ampscope::reports
