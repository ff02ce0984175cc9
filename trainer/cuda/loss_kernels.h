#pragma once
// Launchers of the softmax cross-entropy and the accuracy count (loss_kernels.cu). Each is one
// launch of one block whose threads take a row at a time; the block then adds up the rows it got
// right, so no counter has to be zeroed first. The shared per-row math takes FP32 rows: logits
// stored in 16 bits are converted row by row into `logits_rows`, and gradients for a 16-bit
// dlogits are worked out in `grad_rows` and then stored rounded; both are null when not needed.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/cuda/device_view.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda {

// Row r's loss into state.currentLosses()[r], d(loss * scale / batch)/dlogits into dlogits at the
// scale in state.scaler, and the rows whose argmax is the label and the batch size into
// state.current(). A label outside [0, classes) gives a NaN loss and NaN gradients for its row,
// which the unscaling then finds. batch must not exceed state.max_rows.
void launchSoftmaxCrossEntropy(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                               float* logits_rows, float* grad_rows, WriteView dlogits, StepStateView state,
                               cudaStream_t stream);

// *correct = rows whose argmax is the label.
void launchCountCorrect(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                        float* logits_rows, int* correct, cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
