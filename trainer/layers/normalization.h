#pragma once
// Batch norm (per channel over batch and space, with running statistics for evaluation) and layer
// norm (per row over the features). Statistics are FP32 in every mode; gamma and beta stay FP32.

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

class BatchNorm final : public Layer {
 public:
  BatchNorm(Backend& backend, std::string name, std::int64_t channels);

  std::string_view op() const override { return "batch_norm"; }
  Shape outputShape(const Shape& input) const override { return input; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  std::vector<Parameter*> parameters() override { return {&gamma_, &beta_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;

  static constexpr float kMomentum = 0.1f;
  static constexpr float kEps = 1e-5f;

 private:
  std::int64_t channels_;
  Parameter gamma_;
  Parameter beta_;
  Tensor running_mean_;
  Tensor running_var_;
  Tensor saved_x_, saved_mean_, saved_inv_std_;
};

class LayerNorm final : public Layer {
 public:
  LayerNorm(Backend& backend, std::string name, std::int64_t features);

  std::string_view op() const override { return "layer_norm"; }
  Shape outputShape(const Shape& input) const override { return input; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  std::vector<Parameter*> parameters() override { return {&gamma_, &beta_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;

  static constexpr float kEps = 1e-5f;

 private:
  std::int64_t features_;
  Parameter gamma_;
  Parameter beta_;
  Tensor saved_x_, saved_mean_, saved_inv_std_;
};

}  // namespace ampscope::trainer
