#pragma once
// A kernel for the GPU tests to record: a template, so CUPTI reports its name mangled and the
// test sees the decoder demangle it.

#include <cuda_runtime_api.h>

namespace ampscope::collector::test {

// values[i] *= factor for i < count, on stream, launched with <<<>>> (cudaLaunchKernel).
cudaError_t launchScaleKernel(float* values, float factor, int count, cudaStream_t stream);

}  // namespace ampscope::collector::test
