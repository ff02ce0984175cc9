// The entry points of libampscope_inject.so, the library `ampscope record` injects: NVTX calls
// InitializeInjectionNvtx2 at the program's first NVTX call (NVTX_INJECTION64_PATH), the CUDA
// driver calls InitializeInjection at cuInit (CUDA_INJECTION64_PATH).

#include <cstdint>

#include "collector/gpu_recording.h"
#include "collector/inject/injected_recording.h"
#include "collector/nvtx/nvtx_tool.h"

extern "C" {

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(std::uint32_t export_table_id)) {
  // Returning 0 leaves NVTX's no-op entry points in place.
  if (ampscope::collector::injectedRecording() == nullptr) return 0;
  if (!ampscope::collector::gpuKindsFromEnvironment().nvtx) return 0;
  return ampscope::collector::attachNvtxTool(get_export_table);
}

__attribute__((visibility("default"))) int InitializeInjection() {
  ampscope::collector::ProfileRecorder* recorder = ampscope::collector::injectedRecording();
  if (recorder == nullptr) return 1;
  // A failure is stored in the profile (meta "gpu_activity"); the program runs on regardless.
  const ampscope::trace::Status gpu =
      ampscope::collector::startGpuRecording(*recorder, ampscope::collector::gpuKindsFromEnvironment());
  // Hardware counters (--metrics) after the activity, whose clock CUPTI then stamps samples with;
  // without activity there is no GPU to count on, and meta "gpu_activity" already says why.
  if (gpu) (void)ampscope::collector::startHardwareMetrics(*recorder, ampscope::collector::metricsModeFromEnvironment());
  return 1;
}

}  // extern "C"
