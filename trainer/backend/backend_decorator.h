#pragma once
// The Backend's ops as a fixed set, and a Backend that passes every op on to another, telling
// arrive() first which op it is and how many launches it will queue. Two decorators build on it:
// the fault-injecting backend here fails one op on purpose; the counting backend
// (trainer/engine/run_support.h) counts what a step asks of the device.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trainer/backend/backend.h"

namespace ampscope::trainer {

// The Backend's ops as a fixed set: their names (a fault plan names one) and what each asks of the
// device, which is what train --json counts per step.
enum class BackendOp {
  kAllocate, kAllocateStepState, kUpload, kDownload, kFill, kCopy, kScale, kSynchronize, kGemm, kConvForward,
  kConvBackwardData, kConvBackwardFilter, kAddBias, kBiasGradient, kActivationForward, kActivationBackward,
  kBatchNormForward, kBatchNormBackward, kLayerNormForward, kLayerNormBackward, kPoolForward, kPoolBackward,
  kSoftmaxCrossEntropy, kCountCorrect, kReadStepLog, kCopyAll, kUnscaleGradients, kClipGradients,
  kGradientHistograms, kSgdStep, kAdamWStep, kFinishStep, kMarkStepPoint, kSetLearningRate,
  kCount  // not an op: the number of them
};

enum class OpDemand {
  kNone,         // no device work (memory set aside)
  kLaunch,       // queued device work: one kernel, copy or library call
  kMultiTensor,  // queued device work over many tensors: launches planned by planMultiTensor
  kHostRead,     // the host waits for the device and reads what it computed
};

struct BackendOpInfo {
  std::string_view name;  // the method's name: "gemm", "sgdStep"
  OpDemand demand;
};

const BackendOpInfo& backendOpInfo(BackendOp op);
std::optional<BackendOp> parseBackendOp(std::string_view name);
// Every op's name, comma-separated, for messages.
std::string_view backendOpNames();

// A Backend that passes every op on to another, telling arrive() first which op it is and how
// many launches it will queue (the op set above).

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
  void markStepPoint(StepStateMemory& state, std::int32_t slot, std::int32_t point) override;
  void setLearningRate(StepStateMemory& state, float learning_rate) override;
  // The inner backend's own capture where it has one; else the ops `step` calls are recorded
  // here, with copies of their arguments, and replayed in order (the CPU's stand-in for a CUDA
  // graph, with a graph's semantics: nothing runs while capturing, a replay uses the same tensors).
  std::unique_ptr<StepGraph> captureStep(const std::function<void()>& step) override;

 protected:
  // Called before the op is passed on; may throw to fail it. launches: what the op queues on
  // the device (0 for ops that queue nothing).
  virtual void arrive(BackendOp op, std::int64_t launches) = 0;

 private:
  // arrive() with the launches the op's demand implies, for ops of one launch or none.
  void arriveSingle(BackendOp op);
  // Runs an op that queues work now, or records it while a step is captured.
  void queue(std::function<void()> op);
  // An op that reads back cannot be part of a captured step.
  void refuseWhileRecording(BackendOp op) const;

  std::vector<std::function<void()>>* recording_ = nullptr;  // while a step is recorded

  std::unique_ptr<Backend> owned_;
  Backend& inner_;
};

// A Backend that passes every op on to another and fails one of them on purpose: the plan's call
// of the plan's op throws BackendError, as a failing CUDA, cuBLAS or cuDNN call would. It lets the
// error path (TrainingRun's message naming the step and the layer op, `ampscope train`'s one line
// and exit code) be tested on the CPU, where nothing fails by itself; the CLI wraps its backend in
// one only when the test-only variable AMPSCOPE_TRAIN_FAULT is set (docs/errors.md).
struct FaultPlan {
  BackendOp op = BackendOp::kGemm;
  std::int64_t call = 1;  // which call of that op fails, from 1, counted over the whole run
};

// "OP" (its first call) or "OP:N", OP a Backend method's name ("gemm", "allocate", "sgdStep");
// an error names what is wrong and lists the ops.
Result<FaultPlan> parseFaultPlan(std::string_view text);

class FaultInjectingBackend final : public BackendDecorator {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend> inner, FaultPlan plan)
      : BackendDecorator(std::move(inner)), plan_(plan) {}

 private:
  // Counts a call of the plan's op and throws when it is the planned one.
  void arrive(BackendOp op, std::int64_t launches) override;

  FaultPlan plan_;
  std::int64_t calls_ = 0;  // calls of the plan's op so far
};

}  // namespace ampscope::trainer
