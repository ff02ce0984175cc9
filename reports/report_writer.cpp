#include "reports/report_writer.h"

#include <functional>
#include <system_error>

#include <fmt/format.h>

#include "reports/csv_reports.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_file.h"
#include "reports/report_json.h"

namespace ampscope::reports {

trace::Status writeJsonReport(const analyzer::TraceSummary& summary,
                              const std::vector<analyzer::Recommendation>& recommendations,
                              const std::filesystem::path& dir) {
  // Non-finite numbers (an unbounded ceiling) become null rather than invalid JSON.
  return writeReportFile(dir, "report.json", formatJsonDocument(summaryToJsonDocument(summary, recommendations)));
}

trace::Status writeReport(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations,
                          const std::filesystem::path& dir, std::size_t top) {
  if (trace::Status created = createReportDirectory(dir); !created) return created;
  // One at a time so the first failure stops the rest (a full disk fails every file alike).
  const std::function<trace::Status()> writes[] = {
      [&] { return writeRecommendationsCsv(recommendations, dir); },
      [&] { return writeLayersCsv(summary, dir); },
      [&] { return writeKernelsCsv(summary, dir); },
      [&] { return writeOpsCsv(summary, dir); },
      [&] { return writeIterationsCsv(summary, dir); },
      [&] { return writeCollectivesCsv(summary, dir); },
      [&] { return writeMemoryCsvs(summary, dir); },
      [&] { return writeCountersCsv(summary, dir); },
      [&] { return writeJsonReport(summary, recommendations, dir); },
      [&] { return writeMarkdownReport(summary, recommendations, dir, top); },
      [&] { return writeHtmlReport(summary, recommendations, dir, top); }};
  for (const auto& write : writes) {
    trace::Status status = write();
    if (!status.ok()) return status;
  }
  return {};
}

}  // namespace ampscope::reports
