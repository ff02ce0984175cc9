#pragma once
// `ampscope analyze TRACE... [--json] [--top N] [--save-profile FILE] [--gpu NAME] [--rank N]
// [--threads N]`: one trace, or a job's traces (several files, a folder, a file of several
// processes) analyzed together.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/run_analysis.h"
#include "cli/exit_codes.h"
#include "analyzer/core/read_window.h"

namespace ampscope::cli {

struct AnalyzeOptions {
  std::vector<std::string> trace_paths;  // files or folders
  bool json = false;
  std::size_t top = 10;  // how many entries of each ranked list to print; the analysis is whole
  std::string save_profile;  // also write the imported trace as an ampscope profile
  std::string gpu;  // --gpu NAME: the device when the trace names none; a what-if device otherwise
  std::optional<std::int32_t> rank;  // --rank N: one rank's complete analysis
  std::optional<analyzer::ReadWindow> window;  // --window START:END or step:N-M
  unsigned threads = 0;              // --threads N: files read at once (0: every hardware thread)
};

struct CliAnalysis;

// `analyze --json`: the run's document with its "rank_result", or the job's document.
std::string analysisJson(const CliAnalysis& analysis, std::size_t top);

// Writes the summary to out and errors to err; returns the process exit code.
int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

// Imports and analyzes path (with a progress bar on a terminal); on failure writes the error to
// err and returns nullopt. save_profile, when not empty, also keeps the imported trace as an
// ampscope profile.
std::optional<analyzer::RunAnalysis> analyzeFileForCli(const std::string& path, const std::string& save_profile,
                                                       const analyzer::AnalysisOptions& options, std::ostream& err,
                                                       int& exit_code);

// The --gpu option's check: "" for a name the device table knows, else the message listing them.
std::string checkGpuName(const std::string& name);

}  // namespace ampscope::cli
