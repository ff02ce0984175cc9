#pragma once
// `ampscope report`: every report file for one analysed trace, written into one directory.

#include <filesystem>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/summary/trace_summary.h"
#include "reports/view_limits.h"
#include "trace/result.h"

namespace ampscope::reports {

// The files writeReport writes, as the CLI lists them.
inline constexpr const char* kReportFiles =
    "report.html, report.md, report.json, recommendations.csv, layers.csv, kernels.csv, ops.csv, iterations.csv, "
    "collectives.csv, memory.csv, memory_peak.csv, counters.csv";

// Creates dir (and its parents) and writes the files of kReportFiles into it, replacing older ones. Stops
// at the first failure; the error names the file. The CSVs and report.json hold every row;
// report.md and report.html show the top entries of each ranked list.
trace::Status writeReport(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations,
                          const std::filesystem::path& dir, std::size_t top = kDefaultTop);

// report.json alone (the document of summaryToJsonDocument, indented by 2).
trace::Status writeJsonReport(const analyzer::TraceSummary& summary,
                              const std::vector<analyzer::Recommendation>& recommendations,
                              const std::filesystem::path& dir);

}  // namespace ampscope::reports
