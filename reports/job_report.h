#pragma once
// The report of a distributed job (`report` of several ranks, `merge --out`): report.html with the
// per-rank step bars (compute, exposed communication, data, idle; the straggler outlined), the
// ranks and collectives tables, notes and recommendations; report.json (the job document);
// ranks.csv, collectives.csv and recommendations.csv. Columns: docs/reports.md.

#include <cstddef>
#include <filesystem>
#include <string>

#include "analyzer/job_analysis.h"
#include "trace/result.h"

namespace ampscope::reports {

inline constexpr const char* kJobReportFiles = "report.html, report.json, ranks.csv, collectives.csv, recommendations.csv";

std::string ranksCsv(const analyzer::JobAnalysis& job);
std::string jobHtmlReport(const analyzer::JobAnalysis& job, std::size_t top);

trace::Status writeJobReport(const analyzer::JobAnalysis& job, const std::filesystem::path& dir, std::size_t top);

}  // namespace ampscope::reports
