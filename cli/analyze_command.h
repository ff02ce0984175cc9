#pragma once
// `ampscope analyze TRACE [--json] [--top N] [--save-profile FILE]`.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

#include "analyzer/trace_summary.h"

namespace ampscope::cli {

struct AnalyzeOptions {
  std::string trace_path;
  bool json = false;
  std::size_t top = 10;
  std::string save_profile;  // also write the imported trace as an ampscope profile
};

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// Writes the summary to out and errors to err; returns the process exit code.
int runAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

// Imports, correlates and summarises path (with a progress bar on a terminal); on failure
// writes the error to err and returns nullopt. save_profile, when not empty, also keeps the
// imported trace as an ampscope profile.
std::optional<analyzer::TraceSummary> summarizeFile(const std::string& path, std::size_t top,
                                                    const std::string& save_profile,
                                                    std::ostream& err, int& exit_code);

}  // namespace ampscope::cli
