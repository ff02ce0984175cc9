#include "trainer/cuda/optimizer_kernels.h"

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/launch_config.cuh"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

__global__ void sgdKernel(SgdSettings s, WriteView param, ReadView grad, WriteView momentum, std::int64_t count) {
  for (std::int64_t i = firstIndex(); i < count; i += gridStride()) {
    float buf = load(momentum, i);
    store(param, i, math::sgdUpdate(load(param, i), load(grad, i), buf, s.lr, s.momentum, s.weight_decay));
    store(momentum, i, buf);
  }
}

__global__ void adamWKernel(AdamWSettings s, float bias_correction1, float bias_correction2, WriteView param,
                            ReadView grad, WriteView first_moment, WriteView second_moment, std::int64_t count) {
  for (std::int64_t i = firstIndex(); i < count; i += gridStride()) {
    float m = load(first_moment, i);
    float v = load(second_moment, i);
    store(param, i, math::adamWUpdate(load(param, i), load(grad, i), m, v, s.lr, s.beta1, s.beta2, s.eps,
                                      s.weight_decay, bias_correction1, bias_correction2));
    store(first_moment, i, m);
    store(second_moment, i, v);
  }
}

}  // namespace

void launchSgdStep(const SgdSettings& settings, WriteView param, ReadView grad, WriteView momentum,
                   std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  sgdKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(settings, param, grad, momentum, count);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchAdamWStep(const AdamWSettings& settings, float bias_correction1, float bias_correction2, WriteView param,
                     ReadView grad, WriteView first_moment, WriteView second_moment, std::int64_t count,
                     cudaStream_t stream) {
  if (count == 0) return;
  adamWKernel<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(settings, bias_correction1, bias_correction2, param,
                                                                 grad, first_moment, second_moment, count);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
