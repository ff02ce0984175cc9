#include "trainer/cuda/loss_kernels.h"

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/launch_config.cuh"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

__global__ void softmaxCrossEntropyKernel(const float* logits, ReadView labels, std::int64_t batch,
                                          std::int64_t classes, float grad_factor, float* grad, float* row_loss,
                                          int* correct) {
  for (std::int64_t r = firstIndex(); r < batch; r += gridStride()) {
    const float* row = logits + r * classes;
    float* row_grad = grad == nullptr ? nullptr : grad + r * classes;
    const auto label = static_cast<std::int64_t>(load(labels, r));
    if (label < 0 || label >= classes) {
      row_loss[r] = __int_as_float(0x7fc00000);  // quiet NaN
      if (row_grad != nullptr) {
        for (std::int64_t i = 0; i < classes; ++i) row_grad[i] = __int_as_float(0x7fc00000);
      }
      continue;
    }
    row_loss[r] = math::softmaxCrossEntropyRow(row, classes, label, grad_factor, row_grad);
    if (math::argmaxRow(row, classes) == label) atomicAdd(correct, 1);
  }
}

__global__ void countCorrectKernel(const float* logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                                   int* correct) {
  for (std::int64_t r = firstIndex(); r < batch; r += gridStride()) {
    const auto label = static_cast<std::int64_t>(load(labels, r));
    if (math::argmaxRow(logits + r * classes, classes) == label) atomicAdd(correct, 1);
  }
}

}  // namespace

void launchSoftmaxCrossEntropy(const float* logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                               float grad_factor, float* grad, float* row_loss, int* correct, cudaStream_t stream) {
  if (batch == 0) return;
  softmaxCrossEntropyKernel<<<blocksFor(batch), kThreadsPerBlock, 0, stream>>>(logits, labels, batch, classes,
                                                                               grad_factor, grad, row_loss, correct);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchCountCorrect(const float* logits, ReadView labels, std::int64_t batch, std::int64_t classes, int* correct,
                        cudaStream_t stream) {
  if (batch == 0) return;
  countCorrectKernel<<<blocksFor(batch), kThreadsPerBlock, 0, stream>>>(logits, labels, batch, classes, correct);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
