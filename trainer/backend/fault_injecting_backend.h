#pragma once
// A Backend that passes every op on to another and fails one of them on purpose: the plan's call
// of the plan's op throws BackendError, as a failing CUDA, cuBLAS or cuDNN call would. It lets the
// error path (TrainingRun's message naming the step and the layer op, `ampscope train`'s one line
// and exit code) be tested on the CPU, where nothing fails by itself; the CLI wraps its backend in
// one only when the test-only variable AMPSCOPE_TRAIN_FAULT is set (docs/errors.md).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trainer/backend/backend.h"

namespace ampscope::trainer {

struct FaultPlan {
  std::string op;         // a Backend method's name: "gemm", "allocate", "sgdStep", ...
  std::int64_t call = 1;  // which call of that op fails, from 1, counted over the whole run
};

// "OP" (its first call) or "OP:N"; an error names what is wrong and lists the ops.
Result<FaultPlan> parseFaultPlan(std::string_view text);

class FaultInjectingBackend final : public Backend {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend> inner, FaultPlan plan);

  DeviceKind device() const override { return inner_->device(); }
  std::string description() const override { return inner_->description(); }
  void setTf32(bool enabled) override { inner_->setTf32(enabled); }

  void setAllocationObserver(AllocationObserver* observer) override { inner_->setAllocationObserver(observer); }
  Tensor allocate(const Shape& shape, DType dtype) override {
    arrive("allocate");
    return inner_->allocate(shape, dtype);
  }
  void upload(std::span<const float> values, Tensor& dst) override {
    arrive("upload");
    inner_->upload(values, dst);
  }
  std::vector<float> download(const Tensor& src) override {
    arrive("download");
    return inner_->download(src);
  }
  void fill(Tensor& dst, float value) override {
    arrive("fill");
    inner_->fill(dst, value);
  }
  void copy(const Tensor& src, Tensor& dst) override {
    arrive("copy");
    inner_->copy(src, dst);
  }
  void scale(Tensor& x, float factor) override {
    arrive("scale");
    inner_->scale(x, factor);
  }
  void synchronize() override {
    arrive("synchronize");
    inner_->synchronize();
  }
  void gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) override {
    arrive("gemm");
    inner_->gemm(call, a, b, c);
  }
  void convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) override {
    arrive("convForward");
    inner_->convForward(g, x, filter, y);
  }
  void convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) override {
    arrive("convBackwardData");
    inner_->convBackwardData(g, dy, filter, dx);
  }
  void convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) override {
    arrive("convBackwardFilter");
    inner_->convBackwardFilter(g, x, dy, dfilter);
  }
  void addBias(Tensor& y, const Tensor& bias, std::int64_t channels, std::int64_t inner) override {
    arrive("addBias");
    inner_->addBias(y, bias, channels, inner);
  }
  void biasGradient(const Tensor& dy, Tensor& dbias, std::int64_t channels, std::int64_t inner) override {
    arrive("biasGradient");
    inner_->biasGradient(dy, dbias, channels, inner);
  }
  void activationForward(Activation kind, const Tensor& x, Tensor& y) override {
    arrive("activationForward");
    inner_->activationForward(kind, x, y);
  }
  void activationBackward(Activation kind, const Tensor& x, const Tensor& dy, Tensor& dx) override {
    arrive("activationBackward");
    inner_->activationBackward(kind, x, dy, dx);
  }
  void batchNormForward(const Tensor& x, std::int64_t channels, std::int64_t inner, const Tensor& gamma,
                        const Tensor& beta, Tensor& running_mean, Tensor& running_var, float momentum, float eps,
                        bool training, Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override {
    arrive("batchNormForward");
    inner_->batchNormForward(x, channels, inner, gamma, beta, running_mean, running_var, momentum, eps, training, y,
                             saved_mean, saved_inv_std);
  }
  void batchNormBackward(const Tensor& x, const Tensor& dy, std::int64_t channels, std::int64_t inner,
                         const Tensor& gamma, const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) override {
    arrive("batchNormBackward");
    inner_->batchNormBackward(x, dy, channels, inner, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta);
  }
  void layerNormForward(const Tensor& x, std::int64_t features, const Tensor& gamma, const Tensor& beta, float eps,
                        Tensor& y, Tensor& saved_mean, Tensor& saved_inv_std) override {
    arrive("layerNormForward");
    inner_->layerNormForward(x, features, gamma, beta, eps, y, saved_mean, saved_inv_std);
  }
  void layerNormBackward(const Tensor& x, const Tensor& dy, std::int64_t features, const Tensor& gamma,
                         const Tensor& saved_mean, const Tensor& saved_inv_std, Tensor& dx, Tensor& dgamma,
                         Tensor& dbeta) override {
    arrive("layerNormBackward");
    inner_->layerNormBackward(x, dy, features, gamma, saved_mean, saved_inv_std, dx, dgamma, dbeta);
  }
  void poolForward(PoolKind kind, const PoolGeometry& g, const Tensor& x, Tensor& y) override {
    arrive("poolForward");
    inner_->poolForward(kind, g, x, y);
  }
  void poolBackward(PoolKind kind, const PoolGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dx) override {
    arrive("poolBackward");
    inner_->poolBackward(kind, g, x, dy, dx);
  }
  LossResult softmaxCrossEntropy(const Tensor& logits, const Tensor& labels, float loss_scale,
                                 Tensor& dlogits) override {
    arrive("softmaxCrossEntropy");
    return inner_->softmaxCrossEntropy(logits, labels, loss_scale, dlogits);
  }
  std::int64_t countCorrect(const Tensor& logits, const Tensor& labels) override {
    arrive("countCorrect");
    return inner_->countCorrect(logits, labels);
  }
  bool unscaleAndCheck(std::span<Tensor* const> gradients, float inv_scale) override {
    arrive("unscaleAndCheck");
    return inner_->unscaleAndCheck(gradients, inv_scale);
  }
  double squaredNorm(const Tensor& x) override {
    arrive("squaredNorm");
    return inner_->squaredNorm(x);
  }
  GradientHistogram gradientHistogram(const Tensor& gradient, float scale) override {
    arrive("gradientHistogram");
    return inner_->gradientHistogram(gradient, scale);
  }
  void sgdStep(const SgdSettings& s, Tensor& param, const Tensor& grad, Tensor& momentum) override {
    arrive("sgdStep");
    inner_->sgdStep(s, param, grad, momentum);
  }
  void adamWStep(const AdamWSettings& s, std::int64_t step, Tensor& param, const Tensor& grad, Tensor& first_moment,
                 Tensor& second_moment) override {
    arrive("adamWStep");
    inner_->adamWStep(s, step, param, grad, first_moment, second_moment);
  }

 private:
  // Counts a call of op and throws when it is the planned one.
  void arrive(std::string_view op);

  std::unique_ptr<Backend> inner_;
  FaultPlan plan_;
  std::int64_t calls_ = 0;  // calls of the plan's op so far
};

}  // namespace ampscope::trainer
