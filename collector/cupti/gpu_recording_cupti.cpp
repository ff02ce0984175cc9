// startGpuRecording with CUPTI: a GpuActivitySource fed to the recorder's writer thread.

#include <chrono>

#include "collector/cupti/gpu_activity_source.h"
#include "collector/gpu_recording.h"
#include "collector/profile_recorder.h"

namespace ampscope::collector {

namespace {

GpuActivityKinds cuptiKinds(const GpuKinds& kinds) {
  // Device records always: without them kernels have no device name or compute capability.
  GpuActivityKinds out(GpuActivityKind::kDevice);
  if (kinds.kernel) out = out | GpuActivityKind::kKernel;
  if (kinds.memcpy) out = out | GpuActivityKind::kMemcpy;
  if (kinds.memset) out = out | GpuActivityKind::kMemset;
  if (kinds.runtime) out = out | GpuActivityKind::kRuntime;
  if (kinds.driver) out = out | GpuActivityKind::kDriver;
  if (kinds.sync) out = out | GpuActivityKind::kSynchronization;
  if (kinds.memory) out = out | GpuActivityKind::kMemory;
  return out;
}

// The recorder's view of the CUPTI source: each writer cycle asks CUPTI for the buffers it has
// completed and decodes them; the last one stops CUPTI with a forced flush first.
class CuptiActivitySource final : public ActivitySource {
 public:
  CuptiActivitySource(std::unique_ptr<GpuActivitySource> source, ProfileRecorder& recorder)
      : source_(std::move(source)), recorder_(recorder) {}

  void drain(ActivitySink& sink) override {
    if (source_->recording()) note(source_->flush(FlushMode::kCompleted));
    source_->drain(sink);
  }
  void flush() override { note(source_->flush(FlushMode::kForced)); }
  void stop() override { note(source_->stop()); }

 private:
  // A failing flush or stop loses nothing already decoded; it is written down once.
  void note(const trace::Status& status) {
    if (!status && !noted_) {
      recorder_.meta("gpu_activity_error", status.error().message);
      noted_ = true;
    }
  }
  std::unique_ptr<GpuActivitySource> source_;
  ProfileRecorder& recorder_;
  bool noted_ = false;
};

}  // namespace

trace::Status startGpuRecording(ProfileRecorder& recorder, const GpuKinds& kinds) {
  GpuActivityOptions options;
  options.kinds = cuptiKinds(kinds);
  auto source = GpuActivitySource::start(options);
  if (!source) {
    recorder.meta(std::string(kGpuActivityMeta), "unavailable: " + source.error().message);
    return source.error();
  }
  recorder.meta(std::string(kGpuActivityMeta), "recorded");
  recorder.meta("gpu_activity_kinds", formatGpuKinds(kinds));
  recorder.addSource(std::make_unique<CuptiActivitySource>(std::move(source).value(), recorder));
  return {};
}

}  // namespace ampscope::collector
