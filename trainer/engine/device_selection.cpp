#include "trainer/engine/device_selection.h"

#include <fmt/format.h>

#if defined(AMPSCOPE_TRAINER_CUDA)
#include "trainer/cuda/cuda_backend.h"
#endif

namespace ampscope::trainer {

namespace {

std::unique_ptr<Backend> tryCuda(std::string& why_not) {
#if defined(AMPSCOPE_TRAINER_CUDA)
  return makeCudaBackend(&why_not);
#else
  why_not = "this build has no CUDA backend (the CUDA toolkit was not found when it was configured)";
  return nullptr;
#endif
}

}  // namespace

Result<SelectedBackend> selectBackend(std::string_view device) {
  SelectedBackend out;
  if (device == "cpu") {
    out.backend = makeCpuBackend();
    return out;
  }
  if (device != "cuda" && device != "auto") {
    return Error{fmt::format("--device: unknown device '{}' (expected auto, cpu or cuda)", device)};
  }
  std::string why_not;
  out.backend = tryCuda(why_not);
  if (out.backend) return out;
  if (device == "cuda") return Error{fmt::format("--device cuda: {}", why_not)};
  out.backend = makeCpuBackend();
  out.note = fmt::format("using the CPU: {}", why_not);
  return out;
}

}  // namespace ampscope::trainer
