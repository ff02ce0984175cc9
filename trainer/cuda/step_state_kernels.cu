#include "trainer/cuda/kernels.h"

#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

namespace {

__global__ void finishStepKernel(StepStateView state) { math::finishStep(*state.scaler, state.current()); }

}  // namespace

void launchFinishStep(StepStateView state, cudaStream_t stream) {
  finishStepKernel<<<1, 1, 0, stream>>>(state);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
