#include "cli/report_command.h"

#include <ostream>

#include "cli/analyze_command.h"
#include "reports/report_writer.h"

namespace ampscope::cli {

int runReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto run = analyzeFileForCli(options.trace_path, "", {options.gpu}, err, exit_code);
  if (!run) return exit_code;
  if (trace::Status written = reports::writeReport(run->summary, run->recommendations, options.out_dir, options.top);
      !written) {
    err << "ampscope: " << written.error().message << "\n";
    return kExitFailure;
  }
  out << "ampscope: report written to " << options.out_dir
      << " (report.html, report.md, report.json, recommendations.csv, layers.csv, kernels.csv, ops.csv, iterations.csv, collectives.csv)\n";
  return kExitOk;
}

}  // namespace ampscope::cli
