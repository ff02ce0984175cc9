#include "cli/summary_json.h"

#include "reports/report_json.h"

namespace ampscope::cli {

std::string summaryToJson(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations, std::size_t top) {
  // One document for `analyze --json` and report.json: the reports library owns its keys.
  return reports::formatJsonDocument(reports::summaryToJsonDocument(summary, recommendations, top));
}

}  // namespace ampscope::cli
