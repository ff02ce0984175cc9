#include "cli/report_command.h"

#include <ostream>

#include "cli/exit_codes.h"
#include "cli/job_input.h"
#include "reports/job_report.h"
#include "reports/report_writer.h"

namespace ampscope::cli {

int runReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const InputOptions input{.save_profile = {}, .analysis = {options.gpu, options.threads, options.window}, .rank = options.rank};
  const auto analysis = analyzeInputsForCli(options.trace_paths, input, err, exit_code);
  if (!analysis) return exit_code;
  if (analysis->job) {
    if (trace::Status written = reports::writeJobReport(*analysis->job, options.out_dir, options.top); !written) {
      err << "ampscope: " << written.error().message << "\n";
      return kExitFailure;
    }
    out << "ampscope: job report written to " << options.out_dir << " (" << reports::kJobReportFiles
        << "); one rank's full report: add --rank N\n";
    return kExitOk;
  }
  const analyzer::RunAnalysis& run = *analysis->run;
  if (trace::Status written = reports::writeReport(run.summary, run.recommendations, options.out_dir, options.top);
      !written) {
    err << "ampscope: " << written.error().message << "\n";
    return kExitFailure;
  }
  out << "ampscope: report written to " << options.out_dir << " (" << reports::kReportFiles << ")\n";
  return kExitOk;
}

}  // namespace ampscope::cli
