#pragma once
// Launchers of the multi-tensor ops of a step's end (multi_tensor_kernels.cu): one op over every
// gradient or parameter, launched as planMultiTensor cuts it (trainer/numerics/multi_tensor.h).
// Every op reads the loss scale, the skip flag and the step count from the step state in device
// memory, so none of them waits for the host or makes it wait.

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <span>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/multi_tensor.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda {

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

}  // namespace ampscope::trainer::cuda
