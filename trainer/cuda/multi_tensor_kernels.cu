// The multi-tensor ops of a step's end. Launch counts, which the counting decorator
// (trainer/backend/backend_decorator.cpp) assumes and train --json reports, with P the launches
// planMultiTensor makes of the op's tensors' element counts:
//   copyAll, unscaleGradients, sgdStep, adamWStep   P
//   clipGradients                                   P (squares) + 1 (sum, clip factor)
//                                                   + P when max_norm > 0 (scaling)
// Each kernel reads what it needs of the scaler from device memory; the masked ones (optimizer
// updates, clipping) let every block return at once when the step is skipped, so a skipped step
// costs launches but no memory traffic.
#include "trainer/cuda/kernels.h"

#include "trainer/cuda/multi_tensor.cuh"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

// Each thread of the block takes every blockDim.x-th element of the chunk, so a warp reads
// consecutive elements.
#define AMPSCOPE_FOR_CHUNK(i, range) \
  for (std::int64_t i = (range).begin + threadIdx.x; i < (range).end; i += blockDim.x)

struct CopyOp {
  __device__ __forceinline__ void operator()(const MultiTensorList<2>& list, const ChunkRange& range) const {
    const WriteView source = operandOf(list, 0, range.listed);
    const WriteView destination = operandOf(list, 1, range.listed);
    AMPSCOPE_FOR_CHUNK(i, range) store(destination, i, load(source, i));
  }
};

struct UnscaleOp {
  StepStateView state;
  __device__ __forceinline__ void operator()(const MultiTensorList<1>& list, const ChunkRange& range) const {
    const float inv_scale = math::inverseScale(*state.scaler);
    const WriteView gradient = operandOf(list, 0, range.listed);
    int non_finite = 0;
    AMPSCOPE_FOR_CHUNK(i, range) {
      const float g = load(gradient, i);
      non_finite |= math::isFinite(g) ? 0 : 1;
      store(gradient, i, g * inv_scale);
    }
    // One store per block that saw one; every writer stores the same 1.
    if (__syncthreads_or(non_finite) != 0 && threadIdx.x == 0) state.scaler->found_inf = 1;
  }
};

// The sum of squares of one chunk, in FP64 as the CPU sums, into its op-wide slot.
struct SquaresOp {
  StepStateView state;
  ClipScratch scratch;
  __device__ __forceinline__ void operator()(const MultiTensorList<1>& list, const ChunkRange& range) const {
    if (math::skipsUpdate(*state.scaler)) return;  // the same for the whole block
    const WriteView gradient = operandOf(list, 0, range.listed);
    double sum = 0.0;
    AMPSCOPE_FOR_CHUNK(i, range) {
      const float g = load(gradient, i);
      sum += static_cast<double>(g) * g;
    }
    sum = blockSum(sum);
    if (threadIdx.x == 0) {
      const std::int32_t first = list.first_slot[range.listed];
      scratch.chunk_sums[first + range.chunk] = sum;
      if (range.chunk == 0) scratch.tensor_starts[list.ordinal[range.listed]] = first;
    }
  }
};

// Sums the chunks of each tensor, then the tensors in order, and works out the clip factor.
__global__ void __launch_bounds__(kThreadsPerBlock)
    finishNormKernel(StepStateView state, ClipScratch scratch, std::int64_t tensors, std::int64_t chunks,
                     float max_norm) {
  if (math::skipsUpdate(*state.scaler)) {
    if (threadIdx.x == 0) state.current().gradient_norm_squared = 0.0;
    return;
  }
  for (std::int64_t t = threadIdx.x; t < tensors; t += blockDim.x) {
    const std::int64_t end = t + 1 < tensors ? scratch.tensor_starts[t + 1] : chunks;
    double sum = 0.0;
    for (std::int64_t c = scratch.tensor_starts[t]; c < end; ++c) sum += scratch.chunk_sums[c];
    scratch.tensor_sums[t] = sum;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  double total = 0.0;
  for (std::int64_t t = 0; t < tensors; ++t) total += scratch.tensor_sums[t];
  state.current().gradient_norm_squared = total;
  state.scaler->clip_factor = math::clipFactor(total, max_norm);
}

struct ClipScaleOp {
  StepStateView state;
  __device__ __forceinline__ void operator()(const MultiTensorList<1>& list, const ChunkRange& range) const {
    if (math::skipsUpdate(*state.scaler)) return;
    const float factor = state.scaler->clip_factor;
    if (factor == 1.0f) return;
    const WriteView gradient = operandOf(list, 0, range.listed);
    AMPSCOPE_FOR_CHUNK(i, range) store(gradient, i, load(gradient, i) * factor);
  }
};

// The low-precision copy takes the parameter as stored (rounded to the parameter's dtype), as
// the CPU converts the stored parameter.
__device__ __forceinline__ void writeLowPrecisionCopy(WriteView copy, WriteView param, std::int64_t i) {
  if (copy.data != nullptr) store(copy, i, load(param, i));
}

struct SgdOp {
  SgdSettings settings;
  StepStateView state;
  __device__ __forceinline__ void operator()(const MultiTensorList<4>& list, const ChunkRange& range) const {
    if (math::skipsUpdate(*state.scaler)) return;
    const float lr = state.scaler->learning_rate;  // the step's, set by the host before it
    const WriteView param = operandOf(list, 0, range.listed);
    const WriteView grad = operandOf(list, 1, range.listed);
    const WriteView momentum = operandOf(list, 2, range.listed);
    const WriteView copy = operandOf(list, 3, range.listed);
    AMPSCOPE_FOR_CHUNK(i, range) {
      float buf = load(momentum, i);
      store(param, i,
            math::sgdUpdate(load(param, i), load(grad, i), buf, lr, settings.momentum,
                            settings.weight_decay));
      store(momentum, i, buf);
      writeLowPrecisionCopy(copy, param, i);
    }
  }
};

struct AdamWOp {
  AdamWSettings settings;
  StepStateView state;
  __device__ __forceinline__ void operator()(const MultiTensorList<5>& list, const ChunkRange& range) const {
    const ScalerState& scaler = *state.scaler;
    if (math::skipsUpdate(scaler)) return;
    // The update about to be applied is the run's (applied_steps + 1)-th, as on the CPU.
    const float correction1 = math::biasCorrection(settings.beta1, scaler.applied_steps + 1);
    const float correction2 = math::biasCorrection(settings.beta2, scaler.applied_steps + 1);
    const WriteView param = operandOf(list, 0, range.listed);
    const WriteView grad = operandOf(list, 1, range.listed);
    const WriteView first_moment = operandOf(list, 2, range.listed);
    const WriteView second_moment = operandOf(list, 3, range.listed);
    const WriteView copy = operandOf(list, 4, range.listed);
    AMPSCOPE_FOR_CHUNK(i, range) {
      float m = load(first_moment, i);
      float v = load(second_moment, i);
      store(param, i,
            math::adamWUpdate(load(param, i), load(grad, i), m, v, scaler.learning_rate, settings.beta1, settings.beta2,
                              settings.eps, settings.weight_decay, correction1, correction2));
      store(first_moment, i, m);
      store(second_moment, i, v);
      writeLowPrecisionCopy(copy, param, i);
    }
  }
};

#undef AMPSCOPE_FOR_CHUNK

}  // namespace

void launchCopyAll(std::span<const TensorGroup<2>> tensors, cudaStream_t stream) {
  launchMultiTensor(tensors, CopyOp{}, stream);
}

void launchUnscaleGradients(std::span<const TensorGroup<1>> gradients, StepStateView state, cudaStream_t stream) {
  launchMultiTensor(gradients, UnscaleOp{state}, stream);
}

void launchClipGradients(std::span<const TensorGroup<1>> gradients, float max_norm, StepStateView state,
                         const ClipScratch& scratch, cudaStream_t stream) {
  launchMultiTensor(gradients, SquaresOp{state, scratch}, stream);
  finishNormKernel<<<1, kThreadsPerBlock, 0, stream>>>(state, scratch, nonEmptyTensorCount(gradients),
                                                       multiTensorChunkCount(gradients), max_norm);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
  if (max_norm > 0.0f) launchMultiTensor(gradients, ClipScaleOp{state}, stream);
}

void launchSgdStep(const SgdSettings& settings, std::span<const TensorGroup<4>> parameters, StepStateView state,
                   cudaStream_t stream) {
  launchMultiTensor(parameters, SgdOp{settings, state}, stream);
}

void launchAdamWStep(const AdamWSettings& settings, std::span<const TensorGroup<5>> parameters, StepStateView state,
                     cudaStream_t stream) {
  launchMultiTensor(parameters, AdamWOp{settings, state}, stream);
}

}  // namespace ampscope::trainer::cuda
