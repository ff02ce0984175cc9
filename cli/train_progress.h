#pragma once
// Training progress on stderr: on a terminal a bar redrawn in place with loss, batch accuracy,
// loss scale and images/s; elsewhere a plain line every tenth of the run, so logs stay short.

#include <chrono>
#include <cstdint>

#include "trainer/engine/training_run.h"

namespace ampscope::cli {

class TrainProgress {
 public:
  explicit TrainProgress(std::int64_t batch_size);
  ~TrainProgress();
  void update(const trainer::StepRecord& record, std::int64_t total_steps);
  void finish();

 private:
  std::int64_t batch_size_;
  bool terminal_;
  bool drawn_ = false;
  std::int64_t last_reported_tenth_ = -1;
  std::chrono::steady_clock::time_point started_;
  double smoothed_loss_ = 0.0;
  double smoothed_accuracy_ = 0.0;
};

}  // namespace ampscope::cli
