#pragma once
// The CPU reference backend. Tensors hold floats already rounded to their dtype (see tensor.h);
// every op computes in FP32 and rounds its output to the output's dtype, where the GPU's
// kernels round, so the CPU runs the same numerics as Tensor Cores with FP32 accumulation.
// The class is split over files by kind of op: cpu_backend.cpp (memory, element-wise, loss,
// optimizers), cpu_gemm.cpp, cpu_conv.cpp, cpu_norm.cpp (normalisation and pooling).

#include <cstdint>

#include "trainer/backend/allocation_tracker.h"
#include "trainer/backend/backend.h"
#include "trainer/backend/cpu/bulk_rounding.h"
#include "trainer/backend/cpu/cpu_tensor_pool.h"

namespace ampscope::trainer {

class CpuBackend final : public Backend {
 public:
  CpuBackend();

  DeviceKind device() const override { return DeviceKind::kCpu; }
  std::string description() const override;
  void setTf32(bool enabled) override { tf32_ = enabled; }

  void setAllocationObserver(AllocationObserver* observer) override { tracker_->setObserver(observer); }
  Tensor allocate(const Shape& shape, DType dtype) override;
  void upload(std::span<const float> values, Tensor& dst) override;
  std::vector<float> download(const Tensor& src) override;
  void fill(Tensor& dst, float value) override;
  void copy(const Tensor& src, Tensor& dst) override;
  void scale(Tensor& x, float factor) override;
  void synchronize() override {}

  void gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) override;

  void convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) override;
  void convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) override;
  void convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) override;

  void addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) override;
  void biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) override;
  void activationForward(Activation kind, const Tensor& x, Tensor& y) override;
  void activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) override;

  void batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                        const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum, float eps,
                        bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override;
  void batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                         const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) override;
  void layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta, float eps,
                        Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override;
  void layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                         const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                         Tensor& dbeta) override;
  void poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) override;
  void poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) override;

  StepStateMemory allocateStepState(const StepStateLayout& layout, const ScalerState& initial) override;
  StepLogRead readStepLog(const StepStateMemory& state, std::int32_t first, std::int32_t count) override;
  void softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, StepStateMemory& state,
                           Tensor& dlogits) override;
  std::int64_t countCorrect(const Tensor& logits, const Tensor& labels) override;
  void copyAll(std::span<const Tensor* const> sources, std::span<Tensor* const> destinations) override;
  void unscaleGradients(std::span<Tensor* const> gradients, StepStateMemory& state) override;
  void clipGradients(std::span<Tensor* const> gradients, float max_norm, StepStateMemory& state) override;
  std::vector<GradientHistogram> gradientHistograms(std::span<const Tensor* const> gradients,
                                                    const StepStateMemory& state) override;
  void sgdStep(const SgdSettings& s, std::span<const ParameterTensors> parameters,
               const StepStateMemory& state) override;
  void adamWStep(const AdamWSettings& s, std::span<const ParameterTensors> parameters,
                 const StepStateMemory& state) override;
  void finishStep(StepStateMemory& state) override;
  void markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) override;
  // Ops run as they are called here: nothing to capture (a decorator records them instead).
  std::unique_ptr<StepGraph> captureStep(const std::function<void()>& /*step*/) override { return nullptr; }
  void setLearningRate(StepStateMemory& state, float learning_rate) override {
    state.view().scaler->learning_rate = learning_rate;
  }

 private:
  // FP32 SGEMM on values rounded as the GPU would read them (TF32 for FP32 inputs in tf32 mode),
  // accumulating into c; row-major, one matrix.
  void sgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
             const float* a, const float* b, float beta, float* c, DType input_dtype);

  bool tf32_ = false;
  CpuTensorPool pool_;
  // The pool's cached blocks are what the backend holds beyond live tensors. The tracker asks a
  // copy of the pool's handle, which stays valid after the backend is gone.
  std::shared_ptr<AllocationTracker> tracker_ = AllocationTracker::create(
      DeviceKind::kCpu, 0, [pool = pool_] { return static_cast<std::int64_t>(pool.cachedLogicalBytes()); });
};

// Walks one channel of a tensor viewed as [outer, channels, inner] (NCHW activations with
// inner = H*W, a linear layer's output with inner = 1): the index of each of its values, in
// increasing order, so sums over a channel add in the same order wherever they are taken.
template <typename Visit>
void forChannel(std::int64_t outer, std::int64_t channels, std::int64_t inner, std::int64_t c, Visit&& visit) {
  for (std::int64_t o = 0; o < outer; ++o) {
    const std::int64_t base = (o * channels + c) * inner;
    for (std::int64_t i = 0; i < inner; ++i) visit(base + i);
  }
}

}  // namespace ampscope::trainer
