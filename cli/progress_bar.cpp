#include "cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace ampscope::cli {

namespace {
constexpr auto kDelay = std::chrono::seconds(1);
constexpr int kWidth = 30;
}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), started_(std::chrono::steady_clock::now()),
      enabled_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_ || total == 0) return;
  if (!drawn_ && std::chrono::steady_clock::now() - started_ < kDelay) return;
  const int percent = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
  if (percent == last_percent_) return;
  last_percent_ = percent;
  drawn_ = true;
  const int filled = percent * kWidth / 100;
  std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", label_.c_str(), filled,
               "##############################", kWidth - filled, "", percent);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + kWidth + 10, "");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace ampscope::cli
