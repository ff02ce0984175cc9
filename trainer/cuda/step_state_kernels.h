#pragma once
// The step's end on the device (step_state_kernels.cu): one thread runs math::finishStep on the
// state in device memory, so the loss scale's update never goes through the host.

#include <cuda_runtime_api.h>

#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda {

// One launch of one thread: the figure the counting decorator assumes for finishStep.
void launchFinishStep(StepStateView state, cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
