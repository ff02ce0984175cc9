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

}  // namespace ampscope::collector
