#include "cli/merge_command.h"

#include <fstream>
#include <ostream>
#include <sstream>

#include "analyzer/job/job_analysis.h"
#include "cli/exit_codes.h"
#include "cli/job_text.h"
#include "reports/job_json.h"
#include "reports/job_report.h"
#include "reports/report_json.h"

namespace ampscope::cli {

trace::Result<analyzer::JobAnalysis> mergeResultDocuments(const std::vector<ResultDocument>& documents) {
  std::vector<analyzer::RankResult> ranks;
  for (const ResultDocument& document : documents) {
    auto results = reports::rankResultsFromDocument(document.text, document.source);
    if (!results) return results.error();
    for (analyzer::RankResult& r : *results) ranks.push_back(std::move(r));
  }
  return analyzer::analyzeJob(std::move(ranks));
}

int runMerge(const MergeOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<ResultDocument> documents;
  for (const std::string& input : options.inputs) {
    std::ifstream file(input, std::ios::binary);
    if (!file) {
      err << "ampscope: " << input << ": cannot open\n";
      return kExitBadInput;
    }
    std::ostringstream text;
    text << file.rdbuf();
    documents.push_back({text.str(), input});
  }
  auto job = mergeResultDocuments(documents);
  if (!job) {
    err << "ampscope: " << job.error().message << "\n";
    return kExitBadInput;
  }
  if (!options.out_dir.empty()) {
    if (trace::Status written = reports::writeJobReport(*job, options.out_dir, options.top); !written) {
      err << "ampscope: " << written.error().message << "\n";
      return kExitFailure;
    }
    err << "ampscope: job report written to " << options.out_dir << " (" << reports::kJobReportFiles << ")\n";
  }
  if (options.json) out << reports::formatJsonDocument(reports::jobToJsonDocument(*job));
  else if (options.out_dir.empty()) out << jobToText(*job, options.top);
  return kExitOk;
}

}  // namespace ampscope::cli
