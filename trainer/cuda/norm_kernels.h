#pragma once
// Launchers of batch norm and layer norm (norm_kernels.cu). Statistics are taken in FP32 with
// one block per channel (batch norm) or per row (layer norm); the per-element arithmetic of the
// backward pass is math::normBackwardElement, shared with the CPU backend.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

// x viewed as [outer, channels, inner]; the per-channel tensors may have any dtype.
struct BatchNormForwardArgs {
  ReadView x;
  std::int64_t outer = 0, channels = 0, inner = 0;
  ReadView gamma, beta;
  WriteView running_mean, running_var;
  float momentum = 0.0f;
  float eps = 0.0f;
  bool training = false;
  WriteView y, saved_mean, saved_inv_std;
};

struct BatchNormBackwardArgs {
  ReadView x, dy;
  std::int64_t outer = 0, channels = 0, inner = 0;
  ReadView gamma, saved_mean, saved_inv_std;
  WriteView dx, dgamma, dbeta;
};

// x viewed as [rows, features]; gamma and beta have `features` values, the saved statistics `rows`.
struct LayerNormForwardArgs {
  ReadView x;
  std::int64_t rows = 0, features = 0;
  ReadView gamma, beta;
  float eps = 0.0f;
  WriteView y, saved_mean, saved_inv_std;
};

struct LayerNormBackwardArgs {
  ReadView x, dy;
  std::int64_t rows = 0, features = 0;
  ReadView gamma, saved_mean, saved_inv_std;
  WriteView dx, dgamma, dbeta;
};

void launchBatchNormForward(const BatchNormForwardArgs& args, cudaStream_t stream);
void launchBatchNormBackward(const BatchNormBackwardArgs& args, cudaStream_t stream);
void launchLayerNormForward(const LayerNormForwardArgs& args, cudaStream_t stream);
void launchLayerNormBackward(const LayerNormBackwardArgs& args, cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
