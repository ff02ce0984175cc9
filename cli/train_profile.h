#pragma once
// `ampscope train --profile FILE`: the collector recording the training run in-process. NVTX
// ranges through the collector's static injection, CUPTI activity when the run is on a GPU, host
// activity from the CPU backend otherwise, the trainer's per-step counters, and every tensor's
// allocation and release (as the backend's allocation observer).

#include <atomic>
#include <memory>
#include <string>

#include "collector/hardware_metrics.h"
#include "collector/profile_recorder.h"
#include "trace/result.h"
#include "trainer/backend/allocation_observer.h"
#include "trainer/engine/training_run.h"

namespace ampscope::cli {

class TrainProfile final : public trainer::AllocationObserver {
 public:
  // Starts recording into path before the backend is chosen, so CUPTI sees the whole run.
  // want_gpu: the run may use the GPU (--device auto or cuda).
  // metrics: hardware counters to record with GPU activity (--metrics); never a reason to fail.
  static trace::Result<std::unique_ptr<TrainProfile>> start(const std::string& path, const std::string& command,
                                                            bool want_gpu,
                                                            collector::MetricsMode metrics = collector::MetricsMode::kNone);
  ~TrainProfile() override;

  // A tensor allocated or released on the calling thread, now: a memory event at the collector's
  // clock on this thread (the OS thread id its NVTX ranges carry). Ignored once finished.
  void allocationEvent(const trainer::AllocationEvent& event) override;

  // The per-step counters and gradient histograms (docs/profile_database.md names them).
  void recordStep(const trainer::StepRecord& record);
  void recordSetting(const std::string& key, const std::string& value);
  // Why GPU activity is missing, or empty when it was recorded.
  const std::string& gpuNote() const { return gpu_note_; }
  // What --metrics will cost or why it records nothing, for the run's output; empty without --metrics.
  const std::string& metricsNote() const { return metrics_note_; }
  // Ends the recording; the profile is complete when this returns OK.
  trace::Status finish();
  collector::RecorderCounts counts() const { return recorder_->counts(); }

 private:
  explicit TrainProfile(std::unique_ptr<collector::ProfileRecorder> recorder) : recorder_(std::move(recorder)) {}
  void startMetrics(collector::MetricsMode metrics, bool want_gpu);
  std::unique_ptr<collector::ProfileRecorder> recorder_;
  std::string gpu_note_;
  std::string metrics_note_;
  // Read by allocationEvent on any thread that releases a tensor.
  std::atomic<bool> finished_{false};
};

}  // namespace ampscope::cli
