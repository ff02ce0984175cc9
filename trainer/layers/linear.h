#pragma once
// y = x W^T + b for x [batch, in], W [out, in]: one GEMM with M = batch, N = out, K = in forward;
// backward dx = dy W (M = batch, N = in, K = out) and dW = dy^T x (M = out, N = in, K = batch).

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

class Linear final : public Layer {
 public:
  Linear(Backend& backend, std::string name, std::int64_t in_features, std::int64_t out_features, DType param_dtype);

  std::string_view op() const override { return "linear"; }
  Shape outputShape(const Shape& input) const override { return {input.at(0), out_}; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  std::vector<Parameter*> parameters() override { return {&weight_, &bias_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;
  std::string geometry(const Shape& input) const override;

 private:
  std::int64_t in_;
  std::int64_t out_;
  Parameter weight_;
  Parameter bias_;
  Tensor saved_x_;  // the input as the GEMM read it (in the compute dtype)
  Tensor saved_w_;
};

}  // namespace ampscope::trainer
