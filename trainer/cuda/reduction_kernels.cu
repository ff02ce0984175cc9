#include "trainer/cuda/kernels.h"

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

__global__ void biasGradientKernel(ReadView dy, WriteView dbias, std::int64_t outer, std::int64_t channels,
                                   std::int64_t inner) {
  const std::int64_t c = blockIdx.x;
  const std::int64_t count = outer * inner;
  float sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    sum += load(dy, ((j / inner) * channels + c) * inner + j % inner);
  }
  sum = blockSum(sum);
  if (threadIdx.x == 0) store(dbias, c, sum);
}

__global__ void gradientHistogramKernel(ReadView gradient, std::int64_t count, StepStateView state,
                                        unsigned long long* counters) {
  const float scale = state.scaler->scale;
  // Per-block counts in shared memory first: global atomics on 59 hot addresses would serialise.
  __shared__ unsigned long long local[kHistogramCounters];
  for (int i = static_cast<int>(threadIdx.x); i < kHistogramCounters; i += static_cast<int>(blockDim.x)) local[i] = 0;
  __syncthreads();
  for (std::int64_t i = firstIndex(); i < count; i += gridStride()) {
    const float g = load(gradient, i);
    if (!math::isFinite(g)) {
      atomicAdd(&local[kHistogramNonFiniteAt], 1ull);
    } else if (g == 0.0f) {
      atomicAdd(&local[kHistogramZerosAt], 1ull);
    } else {
      int bin = math::binaryExponent(g) - kHistogramMinExponent;
      bin = bin < 0 ? 0 : (bin > kHistogramBins - 1 ? kHistogramBins - 1 : bin);
      atomicAdd(&local[bin], 1ull);
      if (math::underflowsHalf(g * scale)) atomicAdd(&local[kHistogramUnderflowAt], 1ull);
    }
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kHistogramCounters; i += static_cast<int>(blockDim.x)) {
    if (local[i] != 0) atomicAdd(&counters[i], local[i]);
  }
}

}  // namespace

void launchBiasGradient(ReadView dy, WriteView dbias, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                        cudaStream_t stream) {
  if (channels == 0) return;
  biasGradientKernel<<<static_cast<unsigned int>(channels), kThreadsPerBlock, 0, stream>>>(dy, dbias, outer,
                                                                                           channels, inner);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchGradientHistogram(ReadView gradient, std::int64_t count, StepStateView state, unsigned long long* counters,
                             cudaStream_t stream) {
  if (count == 0) return;
  gradientHistogramKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(gradient, count, state, counters);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
