#pragma once
// Launchers of the softmax cross-entropy and the accuracy count (loss_kernels.cu). The shared
// per-row math takes FP32 rows, so the caller hands in FP32 logits (converted when stored in
// 16 bits) and an FP32 gradient buffer.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

// One thread per row: row_loss[r] = the row's loss, grad[r, :] = d(loss * scale / batch)/dlogit
// (grad may be null), *correct += rows whose argmax equals the label. A label outside
// [0, classes) gives a NaN loss and NaN gradients for its row, which the loss scaler then sees.
void launchSoftmaxCrossEntropy(const float* logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                               float grad_factor, float* grad, float* row_loss, int* correct, cudaStream_t stream);

void launchCountCorrect(const float* logits, ReadView labels, std::int64_t batch, std::int64_t classes, int* correct,
                        cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
