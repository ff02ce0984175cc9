#pragma once
// The GPU architecture a trace's kernel names prove, for traces that name no GPU (Nsight exports
// without TARGET_INFO_GPU, sampled traces). Kernels are built for an architecture and run on it
// and on every later one (an H100 trace is full of sm80_ kernels), so the newest architecture any
// kernel names is a lower bound on the GPU: "at least Hopper", never "Hopper". The tokens read
// and why: docs/devices.md, "Guessing from kernel names".

#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct KernelArchitectureProof {
  int compute_major = 0;  // the newest capability a kernel name proves
  int compute_minor = 0;
  std::string kernel;     // the kernel whose name proves it
};

// The capability a kernel name says it was built for: "sm80_xmma_..." 8.0, "cutlass3x_sm90_..."
// 9.0, "cutlass_75_tensorop_..." 7.5, "ampere_sgemm_..." 8.0, "...FlashAttnFwdSm90<..." 9.0,
// "fmhaSm100aKernel..." 10.0, "cute::SM80_16x8x16_..." 8.0; nullopt for a name that says none
// (cuBLAS nvjet_ kernels without an sm token, Triton, cuDNN runtime names) and for capabilities
// before Volta.
std::optional<std::pair<int, int>> capabilityInKernelName(std::string_view name);

// Over the trace's GPU kernels (host ops of a CPU device are skipped): the newest capability any
// name proves; nullopt when none does.
std::optional<KernelArchitectureProof> architectureFromKernelNames(const trace::Trace& trace);

}  // namespace ampscope::analyzer
