#pragma once
// `ampscope merge RESULT.json... [--json] [--out DIR] [--top N]`: the reduce step of a job analyzed
// on many machines. Each input is the output of `ampscope analyze RANK --json` (its "rank_result")
// or of an earlier merge (its "rank_results"); the job is analyzed from those results exactly as
// `analyze` analyzes the traces together (docs/distributed.md).

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "analyzer/job/job_analysis.h"
#include "trace/result.h"

namespace ampscope::cli {

struct MergeOptions {
  std::vector<std::string> inputs;
  bool json = false;
  std::string out_dir;  // --out DIR: write the job's report there
  std::size_t top = 10;
};

// A result document and where it came from (a file's name, for errors).
struct ResultDocument {
  std::string text;
  std::string source;
};
// The job analyzed from the rank results the documents hold; errors name the source and the key.
trace::Result<analyzer::JobAnalysis> mergeResultDocuments(const std::vector<ResultDocument>& documents);

int runMerge(const MergeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
