#include "trainer/cuda/kernels.h"

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

// The flat index of the j-th value of channel c in [outer, channels, inner].
__device__ __forceinline__ std::int64_t channelElement(std::int64_t j, std::int64_t c, std::int64_t channels,
                                                       std::int64_t inner) {
  return ((j / inner) * channels + c) * inner + j % inner;
}

// One block per channel. Two passes over the channel (mean, then squared deviations) rather than
// E[x^2] - mean^2, which cancels badly in FP32.
__global__ void batchNormForwardKernel(BatchNormForwardArgs a) {
  const std::int64_t c = blockIdx.x;
  const std::int64_t count = a.outer * a.inner;
  float mean = 0.0f;
  float var = 0.0f;
  if (a.training) {
    float sum = 0.0f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      sum += load(a.x, channelElement(j, c, a.channels, a.inner));
    }
    mean = blockSum(sum) / static_cast<float>(count);
    float squares = 0.0f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      const float d = load(a.x, channelElement(j, c, a.channels, a.inner)) - mean;
      squares += d * d;
    }
    squares = blockSum(squares);
    var = squares / static_cast<float>(count);
    if (threadIdx.x == 0) {
      // PyTorch keeps the unbiased variance in the running statistics and normalises with the
      // biased one.
      const float unbiased = count > 1 ? squares / static_cast<float>(count - 1) : var;
      store(a.running_mean, c, (1.0f - a.momentum) * load(a.running_mean, c) + a.momentum * mean);
      store(a.running_var, c, (1.0f - a.momentum) * load(a.running_var, c) + a.momentum * unbiased);
    }
  } else {
    mean = load(a.running_mean, c);
    var = load(a.running_var, c);
  }
  const float inv_std = 1.0f / sqrtf(var + a.eps);
  if (threadIdx.x == 0) {
    store(a.saved_mean, c, mean);
    store(a.saved_inv_std, c, inv_std);
  }
  const float g = load(a.gamma, c);
  const float b = load(a.beta, c);
  for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    const std::int64_t at = channelElement(j, c, a.channels, a.inner);
    store(a.y, at, (load(a.x, at) - mean) * inv_std * g + b);
  }
}

__global__ void batchNormBackwardKernel(BatchNormBackwardArgs a) {
  const std::int64_t c = blockIdx.x;
  const std::int64_t count = a.outer * a.inner;
  const float mean = load(a.saved_mean, c);
  const float inv_std = load(a.saved_inv_std, c);
  const float g = load(a.gamma, c);
  float sum_dy = 0.0f;
  float sum_dy_xhat = 0.0f;
  for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    const std::int64_t at = channelElement(j, c, a.channels, a.inner);
    const float d = load(a.dy, at);
    sum_dy += d;
    sum_dy_xhat += d * (load(a.x, at) - mean) * inv_std;
  }
  sum_dy = blockSum(sum_dy);
  sum_dy_xhat = blockSum(sum_dy_xhat);
  if (threadIdx.x == 0) {
    store(a.dgamma, c, sum_dy_xhat);
    store(a.dbeta, c, sum_dy);
  }
  const float sum_dy_gamma = sum_dy * g;
  const float sum_dy_gamma_xhat = sum_dy_xhat * g;
  for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    const std::int64_t at = channelElement(j, c, a.channels, a.inner);
    const float xhat = (load(a.x, at) - mean) * inv_std;
    store(a.dx, at, math::normBackwardElement(load(a.dy, at) * g, xhat, inv_std, static_cast<float>(count),
                                              sum_dy_gamma, sum_dy_gamma_xhat));
  }
}

// One block per row.
__global__ void layerNormForwardKernel(LayerNormForwardArgs a) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t base = row * a.features;
  float sum = 0.0f;
  for (std::int64_t i = threadIdx.x; i < a.features; i += blockDim.x) sum += load(a.x, base + i);
  const float mean = blockSum(sum) / static_cast<float>(a.features);
  float squares = 0.0f;
  for (std::int64_t i = threadIdx.x; i < a.features; i += blockDim.x) {
    const float d = load(a.x, base + i) - mean;
    squares += d * d;
  }
  const float inv_std = 1.0f / sqrtf(blockSum(squares) / static_cast<float>(a.features) + a.eps);
  if (threadIdx.x == 0) {
    store(a.saved_mean, row, mean);
    store(a.saved_inv_std, row, inv_std);
  }
  for (std::int64_t i = threadIdx.x; i < a.features; i += blockDim.x) {
    store(a.y, base + i, (load(a.x, base + i) - mean) * inv_std * load(a.gamma, i) + load(a.beta, i));
  }
}

// dx, one block per row.
__global__ void layerNormBackwardDataKernel(LayerNormBackwardArgs a) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t base = row * a.features;
  const float mean = load(a.saved_mean, row);
  const float inv_std = load(a.saved_inv_std, row);
  float sum_dy_gamma = 0.0f;
  float sum_dy_gamma_xhat = 0.0f;
  for (std::int64_t i = threadIdx.x; i < a.features; i += blockDim.x) {
    const float dy_gamma = load(a.dy, base + i) * load(a.gamma, i);
    sum_dy_gamma += dy_gamma;
    sum_dy_gamma_xhat += dy_gamma * (load(a.x, base + i) - mean) * inv_std;
  }
  sum_dy_gamma = blockSum(sum_dy_gamma);
  sum_dy_gamma_xhat = blockSum(sum_dy_gamma_xhat);
  for (std::int64_t i = threadIdx.x; i < a.features; i += blockDim.x) {
    const float xhat = (load(a.x, base + i) - mean) * inv_std;
    store(a.dx, base + i, math::normBackwardElement(load(a.dy, base + i) * load(a.gamma, i), xhat, inv_std,
                                                    static_cast<float>(a.features), sum_dy_gamma, sum_dy_gamma_xhat));
  }
}

// dgamma and dbeta, one thread per feature walking down the rows (neighbouring threads read
// neighbouring features, so the loads coalesce).
__global__ void layerNormBackwardParamsKernel(LayerNormBackwardArgs a) {
  for (std::int64_t i = firstIndex(); i < a.features; i += gridStride()) {
    float sum_dgamma = 0.0f;
    float sum_dbeta = 0.0f;
    for (std::int64_t row = 0; row < a.rows; ++row) {
      const std::int64_t at = row * a.features + i;
      const float d = load(a.dy, at);
      sum_dgamma += d * (load(a.x, at) - load(a.saved_mean, row)) * load(a.saved_inv_std, row);
      sum_dbeta += d;
    }
    store(a.dgamma, i, sum_dgamma);
    store(a.dbeta, i, sum_dbeta);
  }
}

unsigned int blockCount(std::int64_t count) { return static_cast<unsigned int>(count); }

}  // namespace

void launchBatchNormForward(const BatchNormForwardArgs& args, cudaStream_t stream) {
  if (args.channels == 0) return;
  batchNormForwardKernel<<<blockCount(args.channels), kThreadsPerBlock, 0, stream>>>(args);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchBatchNormBackward(const BatchNormBackwardArgs& args, cudaStream_t stream) {
  if (args.channels == 0) return;
  batchNormBackwardKernel<<<blockCount(args.channels), kThreadsPerBlock, 0, stream>>>(args);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchLayerNormForward(const LayerNormForwardArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return;
  layerNormForwardKernel<<<blockCount(args.rows), kThreadsPerBlock, 0, stream>>>(args);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchLayerNormBackward(const LayerNormBackwardArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return;
  layerNormBackwardDataKernel<<<blockCount(args.rows), kThreadsPerBlock, 0, stream>>>(args);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
  layerNormBackwardParamsKernel<<<blocksFor(args.features), kThreadsPerBlock, 0, stream>>>(args);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
