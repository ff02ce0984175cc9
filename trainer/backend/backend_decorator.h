#pragma once
// A Backend that passes every op on to another, telling arrive() first which op it is and how
// many launches it will queue (trainer/backend/backend_op.h). The fault-injecting backend fails
// one op on purpose; the counting backend counts what a step asks of the device.

#include <cstdint>
#include <memory>

#include "trainer/backend/backend.h"
#include "trainer/backend/backend_op.h"

namespace ampscope::trainer {

// The launches a multi-tensor op over tensors of these element counts queues.
std::int64_t multiTensorOpLaunches(std::span<const Tensor* const> tensors);
std::int64_t multiTensorOpLaunches(std::span<const ParameterTensors> parameters);
// clipGradients: the norm's pass and its one finishing launch, and the scaling pass when clipping.
std::int64_t clipGradientsLaunches(std::span<Tensor* const> gradients, float max_norm);

class BackendDecorator : public Backend {
 public:
  // Over a backend it owns, or over one that outlives it.
  explicit BackendDecorator(std::unique_ptr<Backend> inner) : owned_(std::move(inner)), inner_(*owned_) {}
  explicit BackendDecorator(Backend& inner) : inner_(inner) {}

  DeviceKind device() const override { return inner_.device(); }
  std::string description() const override { return inner_.description(); }
  void setTf32(bool enabled) override { inner_.setTf32(enabled); }
  void setAllocationObserver(AllocationObserver* observer) override { inner_.setAllocationObserver(observer); }

  Tensor allocate(const Shape& shape, DType dtype) override;
  void upload(std::span<const float> values, Tensor& dst) override;
  std::vector<float> download(const Tensor& src) override;
  void fill(Tensor& dst, float value) override;
  void copy(const Tensor& src, Tensor& dst) override;
  void scale(Tensor& x, float factor) override;
  void synchronize() override;
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

 protected:
  // Called before the op is passed on; may throw to fail it. launches: what the op queues on
  // the device (0 for ops that queue nothing).
  virtual void arrive(BackendOp op, std::int64_t launches) = 0;

 private:
  // arrive() with the launches the op's demand implies, for ops of one launch or none.
  void arriveSingle(BackendOp op);

  std::unique_ptr<Backend> owned_;
  Backend& inner_;
};

}  // namespace ampscope::trainer
