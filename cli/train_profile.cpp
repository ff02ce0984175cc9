#include "cli/train_profile.h"

#include <unistd.h>

#include <cmath>

#include "collector/collector_clock.h"
#include "collector/crash_flush.h"
#include "collector/os_thread.h"
#include "collector/gpu_recording.h"
#include "trainer/backend/backend.h"

namespace ampscope::cli {

trace::Result<std::unique_ptr<TrainProfile>> TrainProfile::start(const std::string& path, const std::string& command,
                                                                 bool want_gpu, collector::MetricsMode metrics) {
  collector::RecorderOptions options;
  options.path = path;
  options.source_detail = command;
  auto recorder = collector::ProfileRecorder::start(options);
  if (!recorder) return recorder.error();
  std::unique_ptr<TrainProfile> profile(new TrainProfile(std::move(recorder).value()));
  collector::installCrashFlush(*profile->recorder_);
  if (want_gpu) {
    // The trainer reports its tensors itself, with totals; CUPTI's allocation records would count
    // each tensor a second time.
    collector::GpuKinds kinds;
    kinds.memory = false;
    if (trace::Status gpu = collector::startGpuRecording(*profile->recorder_, kinds); !gpu) {
      profile->gpu_note_ = gpu.error().message;
    }
  } else {
    profile->gpu_note_ = "the run was on the CPU (--device cpu)";
    profile->recorder_->meta(std::string(collector::kGpuActivityMeta), "unavailable: " + profile->gpu_note_);
  }
  profile->startMetrics(metrics, want_gpu);
  return profile;
}

void TrainProfile::startMetrics(collector::MetricsMode metrics, bool want_gpu) {
  if (metrics == collector::MetricsMode::kNone) return;
  if (!gpu_note_.empty()) {
    // Counters are read from the GPU that CUPTI's activity found; gpuNote() says why there is none.
    metrics_note_ = want_gpu ? "no hardware counters were recorded: they need the GPU activity that was not recorded"
                             : "hardware counters need a GPU (--device cpu)";
    recorder_->meta(std::string(collector::kHardwareMetricsMeta), "unavailable: " + metrics_note_);
    return;
  }
  // A failure is stored in the profile (meta and note) by startHardwareMetrics; the run goes on.
  if (trace::Status started = collector::startHardwareMetrics(*recorder_, metrics); !started) {
    metrics_note_ = started.error().message;
  } else if (metrics == collector::MetricsMode::kPerKernel) {
    metrics_note_ = std::string(collector::kPerKernelCost);
  }
}

TrainProfile::~TrainProfile() {
  if (!finished_) (void)finish();
}

void TrainProfile::allocationEvent(const trainer::AllocationEvent& event) {
  if (finished_.load(std::memory_order_acquire)) return;
  trace::MemoryEvent row;
  row.time_ns = collector::collectorNowNs();
  row.bytes = event.bytes;
  row.address = static_cast<std::uint64_t>(event.address);
  row.total_allocated = event.total_allocated_bytes;
  row.total_reserved = event.total_reserved_bytes;
  // The host device of a CPU profile is device 0 of kind CPU, the one its host ops run on.
  row.device_kind = event.device == trainer::DeviceKind::kCpu ? trace::DeviceKind::kCpu : trace::DeviceKind::kGpu;
  row.device = static_cast<std::uint32_t>(event.device_index);
  recorder_->hostMemoryEvent(row, static_cast<std::int64_t>(getpid()), collector::osThreadId());
}

void TrainProfile::recordSetting(const std::string& key, const std::string& value) { recorder_->meta(key, value); }

void TrainProfile::recordStep(const trainer::StepRecord& record) {
  collector::ProfileRecorder& r = *recorder_;
  r.counter("loss", record.step, record.loss);
  r.counter("loss_scale", record.step, record.loss_scale);
  r.counter("skipped_step", record.step, record.skipped ? 1.0 : 0.0);
  r.counter("gradient_norm", record.step, record.gradient_norm);
  r.counter("batch_accuracy", record.step, record.batch_accuracy);
  for (const trainer::LayerGradients& tensor : record.gradients) {
    const trainer::GradientHistogram& h = tensor.histogram;
    r.counter("gradient_values/" + tensor.layer, record.step, static_cast<double>(h.count));
    r.counter("gradient_zeros/" + tensor.layer, record.step, static_cast<double>(h.zeros));
    r.counter("gradient_non_finite/" + tensor.layer, record.step, static_cast<double>(h.non_finite));
    r.counter("gradient_underflow/" + tensor.layer, record.step, static_cast<double>(h.underflow_at_scale));
    for (std::size_t bin = 0; bin < h.bins.size(); ++bin) {
      if (h.bins[bin] == 0) continue;
      r.gradientBin(tensor.layer, record.step, trainer::kHistogramMinExponent + static_cast<std::int32_t>(bin), h.bins[bin]);
    }
  }
}

trace::Status TrainProfile::finish() {
  finished_.store(true, std::memory_order_release);
  collector::removeCrashFlush();
  return recorder_->stop();
}

}  // namespace ampscope::cli
