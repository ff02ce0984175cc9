#pragma once
// A 2-D convolution over NCHW with a square kernel, stride and zero padding, plus a per-channel
// bias. As a GEMM (what Tensor Cores see): M = N*P*Q, N = K (output channels), K = C*R*S.

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

struct Conv2dShape {
  std::int64_t in_channels = 1;
  std::int64_t out_channels = 8;
  std::int64_t kernel = 3;
  std::int64_t stride = 1;
  std::int64_t pad = 1;
};

class Conv2d final : public Layer {
 public:
  Conv2d(Backend& backend, std::string name, const Conv2dShape& shape, DType param_dtype);

  std::string_view op() const override { return "conv2d"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  std::vector<Parameter*> parameters() override { return {&weight_, &bias_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;
  std::string geometry(const Shape& input) const override;

 private:
  ConvGeometry geometryFor(const Shape& input) const;

  Conv2dShape shape_;
  Parameter weight_;
  Parameter bias_;
  Tensor saved_x_;
  Tensor saved_w_;
  ConvGeometry saved_geometry_;
};

}  // namespace ampscope::trainer
