#pragma once
// `ampscope analyze TRACE [--json] [--top N] [--save-profile FILE]`.

#include <cstddef>
#include <iosfwd>
#include <string>

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

}  // namespace ampscope::cli
