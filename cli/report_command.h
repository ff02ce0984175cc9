#pragma once
// `ampscope report TRACE... --out DIR`: the analysis written as CSV, JSON, Markdown and one
// self-contained HTML page; for a job of several ranks, the job's report (reports/job_report.h).

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>
#include "analyzer/core/read_window.h"

namespace ampscope::cli {

struct ReportOptions {
  std::vector<std::string> trace_paths;  // files or folders
  std::string out_dir;
  std::size_t top = 20;
  std::string gpu;                   // --gpu NAME
  std::optional<std::int32_t> rank;  // --rank N: one rank's complete report
  std::optional<analyzer::ReadWindow> window;  // --window START:END or step:N-M
  unsigned threads = 0;              // --threads N
};

int runReport(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
