// The loss, the multi-tensor ops of a step's end and the gradient histograms. The loss and the
// step's-end ops read the loss scale and the skip flag from the step state in device memory and
// write their figures into it, so a steady step queues its work and never waits; countCorrect
// and gradientHistograms return host values and wait.
#include <array>
#include <vector>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/kernels.h"

namespace ampscope::trainer::cuda {

namespace {

// A tensor a multi-tensor kernel only reads, in the list's one operand type.
WriteView readOperand(ReadView view) { return {const_cast<void*>(view.data), view.dtype}; }

void requireSameElements(const Tensor& a, const Tensor& b, const char* what) {
  if (a.numel() != b.numel()) {
    throw BackendError("CUDA backend", fmt::format("{}: tensors of {} and {} elements", what, a.numel(), b.numel()));
  }
}

// Logits and gradients of 16 bits go through FP32 rows in scratch; FP32 ones are used in place.
std::size_t fp32RowsFor(const Tensor& t) { return t.dtype() == DType::kFp32 ? 0 : static_cast<std::size_t>(t.numel()); }

}  // namespace

void CudaBackend::softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                                      Tensor& dlogits) {
  const StepStateView view = deviceState(state);
  const std::int64_t batch = logits.dim(0);
  const std::int64_t classes = logits.dim(1);
  requireSameElements(logits, dlogits, "softmaxCrossEntropy");
  if (batch > state.layout.max_rows) {
    throw BackendError("CUDA backend", fmt::format("softmaxCrossEntropy: a batch of {} rows for a step log of {} rows",
                                                   batch, state.layout.max_rows));
  }
  ScratchLayout layout;
  const std::size_t logits_at = layout.add<float>(fp32RowsFor(logits));
  const std::size_t grad_at = layout.add<float>(fp32RowsFor(dlogits));
  void* base = scratch(layout);
  float* logits_rows = fp32RowsFor(logits) == 0 ? nullptr : ScratchLayout::at<float>(base, logits_at);
  float* grad_rows = fp32RowsFor(dlogits) == 0 ? nullptr : ScratchLayout::at<float>(base, grad_at);
  launchSoftmaxCrossEntropy(readView(logits), readView(labels), batch, classes, logits_rows, grad_rows,
                            writeView(dlogits), view, stream());
}

std::int64_t CudaBackend::countCorrect(const Tensor& logits, const Tensor& labels) {
  ScratchLayout layout;
  const std::size_t logits_at = layout.add<float>(fp32RowsFor(logits));
  const std::size_t correct_at = layout.add<int>(1);
  void* base = scratch(layout);
  float* logits_rows = fp32RowsFor(logits) == 0 ? nullptr : ScratchLayout::at<float>(base, logits_at);
  int* correct = ScratchLayout::at<int>(base, correct_at);
  launchCountCorrect(readView(logits), readView(labels), logits.dim(0), logits.dim(1), logits_rows, correct, stream());
  int correct_rows = 0;
  fetch(&correct_rows, correct, sizeof(int));
  return correct_rows;
}

void CudaBackend::copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) {
  if (sources.size() != destinations.size()) {
    throw BackendError("CUDA backend",
                       fmt::format("copyAll: {} sources for {} destinations", sources.size(), destinations.size()));
  }
  std::vector<TensorGroup<2>> tensors;
  tensors.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    requireSameElements(*sources[i], *destinations[i], "copyAll");
    tensors.push_back({{readOperand(readView(*sources[i])), writeView(*destinations[i])}, sources[i]->numel()});
  }
  launchCopyAll(tensors, stream());
}

namespace {

std::vector<TensorGroup<1>> gradientGroups(std::span<Tensor* const> gradients, WriteView (*view)(Tensor&)) {
  std::vector<TensorGroup<1>> groups;
  groups.reserve(gradients.size());
  for (Tensor* gradient : gradients) groups.push_back({{view(*gradient)}, gradient->numel()});
  return groups;
}

}  // namespace

void CudaBackend::unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) {
  launchUnscaleGradients(gradientGroups(gradients, &CudaBackend::writeView), deviceState(state), stream());
}

void CudaBackend::clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) {
  const StepStateView view = deviceState(state);
  const std::vector<TensorGroup<1>> groups = gradientGroups(gradients, &CudaBackend::writeView);
  const auto chunks = static_cast<std::size_t>(multiTensorChunkCount<1>(groups));
  const auto tensors = static_cast<std::size_t>(nonEmptyTensorCount<1>(groups));
  ScratchLayout layout;
  const std::size_t chunk_sums_at = layout.add<double>(chunks);
  const std::size_t starts_at = layout.add<std::int32_t>(tensors);
  const std::size_t tensor_sums_at = layout.add<double>(tensors);
  void* base = scratch(layout);
  const ClipScratch clip{ScratchLayout::at<double>(base, chunk_sums_at),
                         ScratchLayout::at<std::int32_t>(base, starts_at),
                         ScratchLayout::at<double>(base, tensor_sums_at)};
  launchClipGradients(groups, max_norm, view, clip, stream());
}

std::vector<GradientHistogram> CudaBackend::gradientHistograms(std::span<const Tensor* const> gradients,
                                                               const StepStateMemory& state) {
  const StepStateView view = deviceState(state);
  std::vector<GradientHistogram> histograms(gradients.size());
  if (gradients.empty()) return histograms;
  // Every tensor's counters in one block, so one copy brings them all back.
  const std::size_t counter_count = gradients.size() * kHistogramCounters;
  ScratchLayout layout;
  const std::size_t counters_at = layout.add<unsigned long long>(counter_count);
  auto* counters = ScratchLayout::at<unsigned long long>(scratch(layout), counters_at);
  AMPSCOPE_CUDA_CHECK(cudaMemsetAsync(counters, 0, counter_count * sizeof(unsigned long long), stream()));
  // A launch per tensor: the histograms are an instrument run every few steps, not the step.
  for (std::size_t t = 0; t < gradients.size(); ++t) {
    launchGradientHistogram(readView(*gradients[t]), gradients[t]->numel(), view, counters + t * kHistogramCounters,
                            stream());
  }
  std::vector<unsigned long long> counts(counter_count);
  fetch(counts.data(), counters, counter_count * sizeof(unsigned long long));
  for (std::size_t t = 0; t < gradients.size(); ++t) {
    const unsigned long long* c = counts.data() + t * kHistogramCounters;
    GradientHistogram& histogram = histograms[t];
    for (std::size_t i = 0; i < histogram.bins.size(); ++i) histogram.bins[i] = c[i];
    histogram.zeros = c[kHistogramZerosAt];
    histogram.non_finite = c[kHistogramNonFiniteAt];
    histogram.underflow_at_scale = c[kHistogramUnderflowAt];
    histogram.count = static_cast<std::uint64_t>(gradients[t]->numel());
  }
  return histograms;
}

namespace {

// The low-precision copy of a parameter, or a null operand the kernels skip.
WriteView optionalOperand(Tensor* t, WriteView (*view)(Tensor&)) {
  return t == nullptr ? WriteView{nullptr, DType::kFp32} : view(*t);
}

}  // namespace

void CudaBackend::sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
                          const StepStateMemory& state) {
  const StepStateView view = deviceState(state);
  std::vector<TensorGroup<4>> groups;
  groups.reserve(parameters.size());
  for (const ParameterTensors& p : parameters) {
    requireSameElements(*p.param, *p.grad, "sgdStep gradient");
    requireSameElements(*p.param, *p.state1, "sgdStep momentum");
    if (p.low_precision_copy != nullptr) requireSameElements(*p.param, *p.low_precision_copy, "sgdStep copy");
    groups.push_back({{writeView(*p.param), readOperand(readView(*p.grad)), writeView(*p.state1),
                       optionalOperand(p.low_precision_copy, &CudaBackend::writeView)},
                      p.param->numel()});
  }
  launchSgdStep(s, groups, view, stream());
}

void CudaBackend::adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                            const StepStateMemory& state) {
  const StepStateView view = deviceState(state);
  std::vector<TensorGroup<5>> groups;
  groups.reserve(parameters.size());
  for (const ParameterTensors& p : parameters) {
    requireSameElements(*p.param, *p.grad, "adamWStep gradient");
    requireSameElements(*p.param, *p.state1, "adamWStep first moment");
    requireSameElements(*p.param, *p.state2, "adamWStep second moment");
    if (p.low_precision_copy != nullptr) requireSameElements(*p.param, *p.low_precision_copy, "adamWStep copy");
    groups.push_back({{writeView(*p.param), readOperand(readView(*p.grad)), writeView(*p.state1), writeView(*p.state2),
                       optionalOperand(p.low_precision_copy, &CudaBackend::writeView)},
                      p.param->numel()});
  }
  launchAdamWStep(s, groups, view, stream());
}

}  // namespace ampscope::trainer::cuda
