#include "tests/collector/cupti/scale_kernel.h"

namespace ampscope::collector::test {
namespace {

template <typename T>
__global__ void scaleKernel(T* values, T factor, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) values[i] *= factor;
}

}  // namespace

cudaError_t launchScaleKernel(float* values, float factor, int count, cudaStream_t stream) {
  constexpr int kBlock = 128;
  scaleKernel<float><<<(count + kBlock - 1) / kBlock, kBlock, 0, stream>>>(values, factor, count);
  return cudaGetLastError();
}

}  // namespace ampscope::collector::test
