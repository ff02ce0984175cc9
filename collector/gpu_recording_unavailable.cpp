// startGpuRecording for builds without the CUDA toolkit: the recording has NVTX and host
// activity only, and says so.

#include "collector/gpu_recording.h"
#include "collector/profile_recorder.h"

namespace ampscope::collector {

trace::Status startGpuRecording(ProfileRecorder& recorder, const GpuKinds&) {
  trace::Error why{"unavailable: this build of ampscope has no CUPTI (the CUDA toolkit was not found when it was configured)"};
  recorder.meta(std::string(kGpuActivityMeta), why.message);
  return why;
}

trace::Status startHardwareMetrics(ProfileRecorder& recorder, MetricsMode mode) {
  if (mode == MetricsMode::kNone) return {};
  const std::string why = "this build of ampscope has no CUPTI (the CUDA toolkit was not found when it was configured)";
  recorder.meta(std::string(kHardwareMetricsMeta), "unavailable: " + why);
  return trace::Error{hardwareCounterNote(why)};
}

}  // namespace ampscope::collector
