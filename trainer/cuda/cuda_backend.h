#pragma once
// The CUDA backend (cuBLAS, cuDNN and our kernels) seen from outside trainer/cuda/: no CUDA
// header leaks through here, so the rest of the trainer builds the same with or without it.

#include <memory>
#include <string>

#include "trainer/backend/backend.h"

namespace ampscope::trainer {

// The backend on the current CUDA device, or nullptr with *why_not saying what is missing (no
// driver, no device, a device this build has no kernels for, a library that failed to start).
std::unique_ptr<Backend> makeCudaBackend(std::string* why_not);

// How many CUDA devices the runtime sees; 0 when there is no driver or no device.
int cudaDeviceCountOrZero();

}  // namespace ampscope::trainer
