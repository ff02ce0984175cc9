#pragma once
// The launchers of our own kernels, one section per .cu file of this folder, in the order a step
// meets them: element-wise, reductions, normalisation, pooling, the loss, the multi-tensor ops of
// the step's end and the step state's update. Each queues its kernel on `stream` and checks the
// launch; none waits. Host code (the backend's .cpp files) sees only these declarations; the
// kernels themselves stay in their .cu files.

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <span>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/multi_tensor.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda {

// Launchers of the element-wise kernels (elementwise_kernels.cu).

void launchConvert(ReadView src, WriteView dst, std::int64_t count, cudaStream_t stream);
void launchFill(WriteView dst, std::int64_t count, float value, cudaStream_t stream);
void launchScale(WriteView x, std::int64_t count, float factor, cudaStream_t stream);
// y[o, c, i] += bias[c] for y viewed as [outer, channels, inner].
void launchAddBias(WriteView y, ReadView bias, std::int64_t count, std::int64_t channels, std::int64_t inner,
                   cudaStream_t stream);
void launchActivationForward(Activation kind, ReadView x, WriteView y, std::int64_t count, cudaStream_t stream);
void launchActivationBackward(Activation kind, ReadView x, ReadView dy, WriteView dx, std::int64_t count,
                              cudaStream_t stream);

// Whether this build holds code the current device can run: cudaSuccess, or the error (for
// example cudaErrorNoKernelImageForDevice) that every launch would fail with.
cudaError_t probeKernelImage();

// Launchers of the reductions (reduction_kernels.cu): the bias gradient (FP32 sums per block)
// and the gradient histogram (counts in device memory the caller copies back).

// dbias[c] = sum of dy[o, c, i] over dy viewed as [outer, channels, inner]; one block per channel.
void launchBiasGradient(ReadView dy, WriteView dbias, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                        cudaStream_t stream);

// Adds the histogram of gradient to counters laid out as kHistogramCounters values: the bins,
// then zeros, non-finite values and values that underflow FP16 at the scale in state.scaler (read
// on the device). The caller zeroes the counters first.
inline constexpr int kHistogramZerosAt = kHistogramBins;
inline constexpr int kHistogramNonFiniteAt = kHistogramBins + 1;
inline constexpr int kHistogramUnderflowAt = kHistogramBins + 2;
inline constexpr int kHistogramCounters = kHistogramBins + 3;
void launchGradientHistogram(ReadView gradient, std::int64_t count, StepStateView state, unsigned long long* counters,
                             cudaStream_t stream);

// Launchers of batch norm and layer norm (norm_kernels.cu). Statistics are taken in FP32 with
// one block per channel (batch norm) or per row (layer norm); the per-element arithmetic of the
// backward pass is math::normBackwardElement, shared with the CPU backend.

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

// Launchers of max and average pooling (pool_kernels.cu) over the planes of [n, c, h, w]
// activations, channels first or last, with a square window.

// PoolGeometry with the output extents worked out on the host (its p()/q() are host code).
struct PoolShape {
  std::int64_t n = 0, c = 0;
  std::int64_t h = 0, w = 0;
  std::int64_t window = 0, stride = 0;
  std::int64_t p = 0, q = 0;
  bool channels_last = false;
};

// 16-bit inputs are widened window by window into registers, which bounds the window; FP32
// inputs are read in place and take any window.
inline constexpr std::int64_t kMaxLowPrecisionPoolWindow = 8;

// Throw BackendError for a window the kernels cannot take.
void launchPoolForward(bool max, const PoolShape& shape, ReadView x, WriteView y, cudaStream_t stream);
void launchPoolBackward(bool max, const PoolShape& shape, ReadView x, ReadView dy, WriteView dx, cudaStream_t stream);

// Launchers of the softmax cross-entropy and the accuracy count (loss_kernels.cu). Each is one
// launch of one block whose threads take a row at a time; the block then adds up the rows it got
// right, so no counter has to be zeroed first. The shared per-row math takes FP32 rows: logits
// stored in 16 bits are converted row by row into `logits_rows`, and gradients for a 16-bit
// dlogits are worked out in `grad_rows` and then stored rounded; both are null when not needed.

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

// Launchers of the multi-tensor ops of a step's end (multi_tensor_kernels.cu): one op over every
// gradient or parameter, launched as planMultiTensor cuts it (trainer/numerics/multi_tensor.h).
// Every op reads the loss scale, the skip flag and the step count from the step state in device
// memory, so none of them waits for the host or makes it wait.

// One tensor of a multi-tensor op with the tensors that go with it (its gradient, its optimizer
// state...), all of `count` elements. An operand may be null where the op says so (the low-
// precision copy of a parameter without one). Operands the op only reads are held as WriteView
// too; the kernels never write them.
template <int kDepth>
struct TensorGroup {
  std::array<WriteView, kDepth> operands{};
  std::int64_t count = 0;
};

// destination = source converted to the destination's dtype. Operands: source, destination.
void launchCopyAll(std::span<const TensorGroup<2>> tensors, cudaStream_t stream);

// g *= math::inverseScale(scaler) in place; scaler->found_inf = 1 when a value was Inf or NaN
// (never reset here: finishStep clears it).
void launchUnscaleGradients(std::span<const TensorGroup<1>> gradients, StepStateView state, cudaStream_t stream);

// Scratch of clipGradients: per-chunk partial sums of squares, where each tensor's chunks start,
// and per-tensor sums.
struct ClipScratch {
  double* chunk_sums = nullptr;           // multiTensorChunkCount(gradients) values
  std::int32_t* tensor_starts = nullptr;  // nonEmptyTensorCount(gradients) values
  double* tensor_sums = nullptr;          // nonEmptyTensorCount(gradients) values
};

template <int kDepth>
std::int64_t multiTensorChunkCount(std::span<const TensorGroup<kDepth>> tensors) {
  std::int64_t chunks = 0;
  for (const TensorGroup<kDepth>& t : tensors) chunks += (t.count + kMultiTensorChunk - 1) / kMultiTensorChunk;
  return chunks;
}

template <int kDepth>
std::int64_t nonEmptyTensorCount(std::span<const TensorGroup<kDepth>> tensors) {
  std::int64_t count = 0;
  for (const TensorGroup<kDepth>& t : tensors) count += t.count > 0 ? 1 : 0;
  return count;
}

// Unless the step is skipped: the squared global norm into the current log entry and the clip
// factor into the scaler; then, when max_norm > 0, every gradient multiplied by the factor when it
// is not 1. A skipped step gets a norm of 0 and nothing else.
void launchClipGradients(std::span<const TensorGroup<1>> gradients, float max_norm, StepStateView state,
                         const ClipScratch& scratch, cudaStream_t stream);

// Operands: param, grad, momentum, low-precision copy (may be null).
void launchSgdStep(const SgdSettings& settings, std::span<const TensorGroup<4>> parameters, StepStateView state,
                   cudaStream_t stream);
// Operands: param, grad, first moment, second moment, low-precision copy (may be null).
void launchAdamWStep(const AdamWSettings& settings, std::span<const TensorGroup<5>> parameters, StepStateView state,
                     cudaStream_t stream);

// The step's end on the device (step_state_kernels.cu): one thread runs math::finishStep on the
// state in device memory, so the loss scale's update never goes through the host.

// One launch of one thread: the figure the counting decorator assumes for finishStep.
void launchFinishStep(StepStateView state, cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
