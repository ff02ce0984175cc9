#pragma once
// A progress bar on stderr for long imports: appears only after a second, and only when stderr
// is a terminal, so logs and pipes stay clean.

#include <chrono>
#include <cstdint>
#include <string>

namespace ampscope::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  void update(std::uint64_t done, std::uint64_t total);
  void finish();

 private:
  std::string label_;
  std::chrono::steady_clock::time_point started_;
  bool enabled_ = false;
  bool drawn_ = false;
  int last_percent_ = -1;
};

}  // namespace ampscope::cli
