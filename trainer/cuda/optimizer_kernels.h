#pragma once
// Launchers of the optimizer updates (optimizer_kernels.cu): one thread per parameter running
// math::sgdUpdate / math::adamWUpdate, every state written back rounded to its tensor's dtype.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

void launchSgdStep(const SgdSettings& settings, WriteView param, ReadView grad, WriteView momentum,
                   std::int64_t count, cudaStream_t stream);

// bias_correction1/2 = 1 - beta^step, worked out on the host in double as the CPU backend does.
void launchAdamWStep(const AdamWSettings& settings, float bias_correction1, float bias_correction2, WriteView param,
                     ReadView grad, WriteView first_moment, WriteView second_moment, std::int64_t count,
                     cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
