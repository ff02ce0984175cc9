#include "cli/train_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace ampscope::cli {

TrainProgress::TrainProgress(std::int64_t batch_size)
    : batch_size_(batch_size), terminal_(isatty(fileno(stderr)) != 0), started_(std::chrono::steady_clock::now()) {}

TrainProgress::~TrainProgress() { finish(); }

void TrainProgress::update(const trainer::StepRecord& record, std::int64_t total_steps) {
  // An exponential moving average: single batches are noisy.
  const double weight = record.step == 0 ? 1.0 : 0.05;
  smoothed_loss_ += weight * (record.loss - smoothed_loss_);
  smoothed_accuracy_ += weight * (record.batch_accuracy - smoothed_accuracy_);
  const std::int64_t done = record.step + 1;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double images_per_second = seconds > 0 ? static_cast<double>(done * batch_size_) / seconds : 0.0;
  const std::string figures =
      fmt::format("step {}/{} epoch {} loss {:.4f} acc {:.1f}% scale {:g}{} {:.0f} img/s", done, total_steps,
                  record.epoch + 1, smoothed_loss_, 100.0 * smoothed_accuracy_, record.loss_scale,
                  record.skipped ? " (skipped)" : "", images_per_second);
  if (terminal_) {
    constexpr int kWidth = 24;
    const auto filled = static_cast<int>(kWidth * std::min<std::int64_t>(done, total_steps) / std::max<std::int64_t>(1, total_steps));
    fmt::print(stderr, "\r[{}{}] {}\x1b[K", std::string(static_cast<std::size_t>(filled), '#'),
               std::string(static_cast<std::size_t>(kWidth - filled), '.'), figures);
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  const std::int64_t tenth = 10 * done / std::max<std::int64_t>(1, total_steps);
  if (tenth != last_reported_tenth_) {
    last_reported_tenth_ = tenth;
    fmt::print(stderr, "{}\n", figures);
  }
}

void TrainProgress::finish() {
  if (drawn_) fmt::print(stderr, "\n");
  drawn_ = false;
}

}  // namespace ampscope::cli
