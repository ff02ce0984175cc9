// The loss, the gradient checks and the optimizer steps. Ops that return host values queue their
// kernels, copy the few results back through pinned staging and wait for them.
#include <array>
#include <cmath>

#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/elementwise_kernels.h"
#include "trainer/cuda/loss_kernels.h"
#include "trainer/cuda/optimizer_kernels.h"
#include "trainer/cuda/reduction_kernels.h"

namespace ampscope::trainer::cuda {

const float* CudaBackend::fp32Rows(const Tensor& logits, void* scratch_base, std::size_t offset) {
  if (logits.dtype() == DType::kFp32) return static_cast<const float*>(readView(logits).data);
  float* rows = ScratchLayout::at<float>(scratch_base, offset);
  launchConvert(readView(logits), WriteView{rows, DType::kFp32}, logits.numel(), stream());
  return rows;
}

Backend::LossResult CudaBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float loss_scale,
                                                     Tensor& dlogits) {
  const std::int64_t batch = logits.dim(0);
  const std::int64_t classes = logits.dim(1);
  const auto values = static_cast<std::size_t>(logits.numel());
  const bool grad_in_place = dlogits.dtype() == DType::kFp32;
  ScratchLayout layout;
  const std::size_t logits_at = layout.add<float>(logits.dtype() == DType::kFp32 ? 0 : values);
  const std::size_t grad_at = layout.add<float>(grad_in_place ? 0 : values);
  const std::size_t loss_at = layout.add<float>(static_cast<std::size_t>(batch));
  const std::size_t correct_at = layout.add<int>(1);
  void* base = scratch(layout);

  const float* rows = fp32Rows(logits, base, logits_at);
  float* grad = grad_in_place ? static_cast<float*>(writeView(dlogits).data) : ScratchLayout::at<float>(base, grad_at);
  float* row_loss = ScratchLayout::at<float>(base, loss_at);
  int* correct = ScratchLayout::at<int>(base, correct_at);
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(correct, 0, sizeof(int), stream()));
  launchSoftmaxCrossEntropy(rows, readView(labels), batch, classes, loss_scale / static_cast<float>(batch), grad,
                            row_loss, correct, stream());
  if (!grad_in_place) launchConvert(ReadView{grad, DType::kFp32}, writeView(dlogits), logits.numel(), stream());

  std::vector<float> losses(static_cast<std::size_t>(batch));
  fetch(losses.data(), row_loss, losses.size() * sizeof(float));
  int correct_rows = 0;
  fetch(&correct_rows, correct, sizeof(int));
  // Summed on the host in row order and in double, exactly as the CPU backend sums.
  double loss_sum = 0.0;
  for (float loss : losses) loss_sum += loss;
  LossResult result;
  result.loss = batch == 0 ? 0.0 : loss_sum / static_cast<double>(batch);
  result.correct = correct_rows;
  return result;
}

std::int64_t CudaBackend::countCorrect(const Tensor& logits, const Tensor& labels) {
  ScratchLayout layout;
  const std::size_t logits_at =
      layout.add<float>(logits.dtype() == DType::kFp32 ? 0 : static_cast<std::size_t>(logits.numel()));
  const std::size_t correct_at = layout.add<int>(1);
  void* base = scratch(layout);
  const float* rows = fp32Rows(logits, base, logits_at);
  int* correct = ScratchLayout::at<int>(base, correct_at);
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(correct, 0, sizeof(int), stream()));
  launchCountCorrect(rows, readView(labels), logits.dim(0), logits.dim(1), correct, stream());
  int correct_rows = 0;
  fetch(&correct_rows, correct, sizeof(int));
  return correct_rows;
}

bool CudaBackend::unscaleAndCheck(std::span<Tensor* const> gradients, float inv_scale) {
  ScratchLayout layout;
  const std::size_t flag_at = layout.add<int>(1);
  int* found = ScratchLayout::at<int>(scratch(layout), flag_at);
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(found, 0, sizeof(int), stream()));
  for (Tensor* gradient : gradients) {
    launchUnscaleAndCheck(writeView(*gradient), gradient->numel(), inv_scale, found, stream());
  }
  int found_non_finite = 0;
  fetch(&found_non_finite, found, sizeof(int));
  return found_non_finite != 0;
}

double CudaBackend::squaredNorm(const Tensor& x) {
  ScratchLayout layout;
  const std::size_t partials_at = layout.add<float>(kSquaredNormPartials);
  const std::size_t result_at = layout.add<double>(1);
  void* base = scratch(layout);
  double* result = ScratchLayout::at<double>(base, result_at);
  launchSquaredNorm(readView(x), x.numel(), ScratchLayout::at<float>(base, partials_at), result, stream());
  double sum = 0.0;
  fetch(&sum, result, sizeof(double));
  return sum;
}

GradientHistogram CudaBackend::gradientHistogram(const Tensor& gradient, float scale) {
  ScratchLayout layout;
  const std::size_t counters_at = layout.add<unsigned long long>(kHistogramCounters);
  auto* counters = ScratchLayout::at<unsigned long long>(scratch(layout), counters_at);
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(counters, 0, kHistogramCounters * sizeof(unsigned long long), stream()));
  launchGradientHistogram(readView(gradient), gradient.numel(), scale, counters, stream());
  std::array<unsigned long long, kHistogramCounters> counts{};
  fetch(counts.data(), counters, sizeof(counts));
  GradientHistogram histogram;
  for (std::size_t i = 0; i < histogram.bins.size(); ++i) histogram.bins[i] = counts[i];
  histogram.zeros = counts[kHistogramZerosAt];
  histogram.non_finite = counts[kHistogramNonFiniteAt];
  histogram.underflow_at_scale = counts[kHistogramUnderflowAt];
  histogram.count = static_cast<std::uint64_t>(gradient.numel());
  return histogram;
}

void CudaBackend::sgdStep(const SgdSettings& s, Tensor& param, const Tensor& grad, Tensor& momentum) {
  launchSgdStep(s, writeView(param), readView(grad), writeView(momentum), param.numel(), stream());
}

void CudaBackend::adamWStep(const AdamWSettings& s, std::int64_t step, Tensor& param, const Tensor& grad,
                            Tensor& first_moment, Tensor& second_moment) {
  // In double and then rounded, as the CPU backend computes them.
  const auto correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), static_cast<double>(step)));
  const auto correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta2), static_cast<double>(step)));
  launchAdamWStep(s, correction1, correction2, writeView(param), readView(grad), writeView(first_moment),
                  writeView(second_moment), param.numel(), stream());
}

}  // namespace ampscope::trainer::cuda
