// startHardwareMetrics with CUPTI: a HardwareMetricsSource fed to the recorder's writer thread,
// which also keeps the profile's meta "hardware_metrics" saying what is recorded, or why not.

#include <utility>

#include "collector/cupti/hardware_metrics_source.h"
#include "collector/gpu_recording.h"
#include "collector/profile_recorder.h"

namespace ampscope::collector {

namespace {

class MetricsSourceForRecorder final : public ActivitySource {
 public:
  MetricsSourceForRecorder(std::unique_ptr<HardwareMetricsSource> source, ProfileRecorder& recorder)
      : source_(std::move(source)), recorder_(recorder) {}

  void drain(ActivitySink& sink) override {
    source_->drain(sink);
    // Contexts appear while the program runs: the description follows them.
    if (std::string now = source_->describe(); now != described_) {
      recorder_.meta(std::string(kHardwareMetricsMeta), now);
      described_ = std::move(now);
    }
  }
  void flush() override { source_->flush(); }
  void stop() override { source_->stop(); }

 private:
  std::unique_ptr<HardwareMetricsSource> source_;
  ProfileRecorder& recorder_;
  std::string described_;
};

}  // namespace

trace::Status startHardwareMetrics(ProfileRecorder& recorder, MetricsMode mode) {
  if (mode == MetricsMode::kNone) return {};
  auto source = HardwareMetricsSource::start(mode);
  if (!source) {
    recorder.meta(std::string(kHardwareMetricsMeta), "unavailable: " + source.error().message);
    recorder.reportLost(source.error().message, 1);
    return source.error();
  }
  recorder.meta(std::string(kHardwareMetricsMeta), (*source)->describe());
  recorder.addSource(std::make_unique<MetricsSourceForRecorder>(std::move(source).value(), recorder));
  return {};
}

}  // namespace ampscope::collector
