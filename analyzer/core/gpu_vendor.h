#pragma once
// Whether a trace was recorded on an AMD GPU. ROCm's PyTorch writes the same Kineto format as
// CUDA's, from hip* calls (hipLaunchKernel, hipExtModuleLaunchKernel, hipMemcpyWithStream), and
// HIP reports a compute capability of its own (an MI210, gfx90a, says 9.0; an MI300X 9.4): read as
// an NVIDIA GPU, an MI210 would pass for a Hopper. ampscope has no peaks and no Tensor Core rules
// for AMD's matrix cores, so such a trace is read (its operators, steps, time) and says once that
// its Tensor Core figures and projections are unknown.

#include <optional>
#include <string>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct AmdGpu {
  std::string name;      // the device's name where the trace gives one ("AMD Instinct MI300X"), else ""
  std::string evidence;  // what told: "the device is named \"AMD Instinct MI210\"", "hip* API calls (hipLaunchKernel)"
};

// The AMD GPU a trace was recorded on: a GPU device named by AMD ("AMD ...", "... Radeon ...",
// "... Instinct ..."), or HIP API calls; nullopt for any other trace.
std::optional<AmdGpu> amdGpuOf(const trace::Trace& trace);

// "AMD Instinct MI210 (the device is named ...)": the GPU and why, for the reasons views show.
std::string amdGpuText(const AmdGpu& gpu);

}  // namespace ampscope::analyzer
