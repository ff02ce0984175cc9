#include "trainer/cuda/kernels.h"

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/elementwise_math.h"

namespace ampscope::trainer::cuda {

namespace {

// Rows per pass of the one block; batches are a few hundred rows.
constexpr int kLossThreads = 512;

// Row r of the logits as FP32: the tensor's own row, or the row converted into rows.
__device__ const float* fp32Row(ReadView logits, float* rows, std::int64_t r, std::int64_t classes) {
  if (rows == nullptr) return static_cast<const float*>(logits.data) + r * classes;
  float* row = rows + r * classes;
  for (std::int64_t i = 0; i < classes; ++i) row[i] = load(logits, r * classes + i);
  return row;
}

__device__ float quietNaN() { return __int_as_float(0x7fc00000); }

__global__ void __launch_bounds__(kLossThreads)
    softmaxCrossEntropyKernel(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                              float* logits_rows, float* grad_rows, WriteView dlogits, StepStateView state) {
  // The CPU's own expression: the scale as this step's loss is multiplied by, over the batch.
  const float grad_factor = state.scaler->scale / static_cast<float>(batch);
  float* losses = state.currentLosses();
  int correct = 0;
  for (std::int64_t r = threadIdx.x; r < batch; r += blockDim.x) {
    const float* row = fp32Row(logits, logits_rows, r, classes);
    float* grad = (grad_rows == nullptr ? static_cast<float*>(dlogits.data) : grad_rows) + r * classes;
    const auto label = static_cast<std::int64_t>(load(labels, r));
    if (label < 0 || label >= classes) {
      losses[r] = quietNaN();
      for (std::int64_t i = 0; i < classes; ++i) grad[i] = quietNaN();
    } else {
      losses[r] = math::softmaxCrossEntropyRow(row, classes, label, grad_factor, grad);
      correct += math::argmaxRow(row, classes) == label ? 1 : 0;
    }
    if (grad_rows != nullptr) {
      for (std::int64_t i = 0; i < classes; ++i) store(dlogits, r * classes + i, grad[i]);
    }
  }
  correct = blockSum(correct);
  if (threadIdx.x == 0) {
    StepLogEntry& entry = state.current();
    entry.correct = correct;
    entry.rows = static_cast<std::int32_t>(batch);
  }
}

__global__ void __launch_bounds__(kLossThreads)
    countCorrectKernel(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes, float* logits_rows,
                       int* correct) {
  int right = 0;
  for (std::int64_t r = threadIdx.x; r < batch; r += blockDim.x) {
    const auto label = static_cast<std::int64_t>(load(labels, r));
    right += math::argmaxRow(fp32Row(logits, logits_rows, r, classes), classes) == label ? 1 : 0;
  }
  right = blockSum(right);
  if (threadIdx.x == 0) *correct = right;
}

}  // namespace

// One launch, whatever the batch: the figure the counting decorator assumes for the loss.
void launchSoftmaxCrossEntropy(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                               float* logits_rows, float* grad_rows, WriteView dlogits, StepStateView state,
                               cudaStream_t stream) {
  softmaxCrossEntropyKernel<<<1, kLossThreads, 0, stream>>>(logits, labels, batch, classes, logits_rows, grad_rows,
                                                            dlogits, state);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launchCountCorrect(ReadView logits, ReadView labels, std::int64_t batch, std::int64_t classes,
                        float* logits_rows, int* correct, cudaStream_t stream) {
  countCorrectKernel<<<1, kLossThreads, 0, stream>>>(logits, labels, batch, classes, logits_rows, correct);
  AMPSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ampscope::trainer::cuda
