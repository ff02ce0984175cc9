#pragma once
// What `analyze` and `report` were given, analyzed: one run (a trace of one process), or a job of
// several ranks (several files, a folder, a file of several processes), or, with --rank N, the
// full analysis of one rank of such a job.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/job/job_analysis.h"
#include "analyzer/job/rank_result.h"
#include "analyzer/run_analysis.h"

namespace ampscope::cli {

struct InputOptions {
  std::string save_profile;  // one trace only: also keep it as an ampscope profile
  analyzer::AnalysisOptions analysis;  // with --threads N (0: every hardware thread)
  std::optional<std::int32_t> rank;    // --rank N
};

struct CliAnalysis {
  std::optional<analyzer::RunAnalysis> run;   // one run (or --rank N)
  analyzer::RankResult rank_result;           // the run as one rank: what `merge` reads back
  std::optional<analyzer::JobAnalysis> job;   // several ranks
};

// On failure writes the error to err, sets exit_code and returns nullopt.
std::optional<CliAnalysis> analyzeInputsForCli(const std::vector<std::string>& paths, const InputOptions& options,
                                               std::ostream& err, int& exit_code);

// --rank N of a job analyzed before: that rank's complete analysis (its trace read again).
std::optional<CliAnalysis> rankOfJobForCli(const analyzer::JobAnalysis& job, std::int32_t rank,
                                           const analyzer::AnalysisOptions& options, std::ostream& err,
                                           int& exit_code);

}  // namespace ampscope::cli
