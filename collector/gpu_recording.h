#pragma once
// GPU activity (CUPTI) for a recording. Where it cannot be had (a build without CUPTI, no
// driver, no GPU) the recording goes on with NVTX and host activity only, and the profile's
// ampscope_meta row "gpu_activity" says why, for `record` and `analyze` to tell the user.

#include <string>
#include <string_view>

#include "collector/hardware_metrics.h"
#include "trace/result.h"

namespace ampscope::collector {

class ProfileRecorder;

// What to record; `--kinds` and AMPSCOPE_RECORD_KINDS name them as a comma-separated list.
struct GpuKinds {
  bool kernel = true;
  bool memcpy = true;
  bool memset = true;
  bool runtime = true;
  // Libraries launch through the driver: cuBLAS 12+ its GEMMs with cuLaunchKernelEx, cuDNN and
  // Triton with cuLaunchKernel. Without these calls their kernels have no launch, so no operator,
  // layer or step. CUPTI records no driver call the runtime makes for a runtime call.
  bool driver = true;
  bool sync = true;
  bool memory = true;   // allocations and frees of device memory (CUPTI MEMORY2)
  bool nvtx = true;     // not a GPU kind, but chosen in the same list
};

// Parses "kernel,memcpy,memset,runtime,driver,sync,memory,nvtx" (any subset; "all" for everything).
trace::Result<GpuKinds> parseGpuKinds(std::string_view list);
std::string formatGpuKinds(const GpuKinds& kinds);
// The kinds `record` passed in the environment, or the defaults.
GpuKinds gpuKindsFromEnvironment();

// Starts CUPTI activity into recorder. On failure the recording continues without it; the
// returned error is also stored as meta "gpu_activity".
trace::Status startGpuRecording(ProfileRecorder& recorder, const GpuKinds& kinds);

inline constexpr std::string_view kGpuActivityMeta = "gpu_activity";

// Starts recording hardware counters (--metrics) into recorder, after startGpuRecording: CUPTI PM
// sampling of every device the program creates a context on (kSampled), or the range profiler on
// every context (kPerKernel). Never fails the recording: where the driver refuses (profiling
// restricted to administrators) or the chip offers no counter, the profile gets a note (an
// import_stats "lost" reason) and meta kHardwareMetricsMeta says why; the returned error says it too.
trace::Status startHardwareMetrics(ProfileRecorder& recorder, MetricsMode mode);

}  // namespace ampscope::collector
