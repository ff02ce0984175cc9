#pragma once
// `ampscope report TRACE --out DIR`: the analysis written as CSV, JSON, Markdown and one
// self-contained HTML page.

#include <cstddef>
#include <iosfwd>
#include <string>

namespace ampscope::cli {

struct ReportOptions {
  std::string trace_path;
  std::string out_dir;
  std::size_t top = 20;
  std::string gpu;  // --gpu NAME
};

int runReport(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
