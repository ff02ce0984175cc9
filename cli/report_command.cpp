#include "cli/report_command.h"

#include <ostream>

#include "analyzer/recommendations.h"
#include "cli/analyze_command.h"
#include "reports/report_writer.h"

namespace ampscope::cli {

int runReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto summary = summarizeFile(options.trace_path, options.top, "", err, exit_code);
  if (!summary) return exit_code;
  const std::vector<analyzer::Recommendation> recommendations = analyzer::recommend(*summary);
  if (trace::Status written = reports::writeReport(*summary, recommendations, options.out_dir); !written) {
    err << "ampscope: " << written.error().message << "\n";
    return kExitFailure;
  }
  out << "ampscope: report written to " << options.out_dir
      << " (report.html, report.md, report.json, recommendations.csv, layers.csv, kernels.csv, iterations.csv)\n";
  return kExitOk;
}

}  // namespace ampscope::cli
