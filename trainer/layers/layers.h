#pragma once
// The layers a model is made of. Each forward keeps what its backward needs; each backward
// returns the input's gradient and writes its parameters' gradients. The dtype each op computes
// in comes from the autocast policy (trainer/amp/mixed_precision.h), so one layer serves every
// precision mode. The base class and what layers share come first, then the matrix layers
// (Linear, Conv2d), normalisation, and the layers without parameters.

#include <string>
#include <string_view>
#include <vector>

#include "trainer/amp/mixed_precision.h"
#include "trainer/backend/backend.h"

namespace ampscope::trainer {

// A learnable tensor and what the precision mode and the optimizer keep beside it.
struct Parameter {
  std::string name;      // "fc1.weight"
  Tensor value;          // what the forward reads (FP32, or FP16 in the fp16-master/fp16-pure modes)
  Tensor grad;           // d loss / d value, in value's dtype
  Tensor master;         // FP32 master copy in fp16-master mode; undefined otherwise
  Tensor master_grad;    // FP32 gradient for the master copy
  Tensor state1, state2; // optimizer state (momentum; Adam's moments)
  bool always_fp32 = false;  // normalisation parameters stay FP32 in every mode, as apex keeps them

  Tensor& updated() { return master.defined() ? master : value; }
  Tensor& updatedGrad() { return master_grad.defined() ? master_grad : grad; }
};

// Autocast's parameters in the compute dtype, kept from step to step (as torch.autocast caches a
// weight's cast within its region, but across steps). The first step casts each parameter as a
// layer asks for it; from then on the run refreshes every cast in one copyAll at the step's start,
// and the gradients the layers compute in low precision reach the parameters' own gradients in one
// copyAll after backward. The values are those a cast per layer would give, so a step's launches
// for casts stop growing with its parameter tensors.
class ParameterCasts {
 public:
  // p.value in dtype: p.value itself when it already is, else its kept cast (cast now if new).
  Tensor valueIn(Backend& backend, Parameter& p, DType dtype);
  // Where to compute p's gradient in dtype: p.grad itself when the dtypes agree, else a kept buffer
  // that castGradients casts into p.grad.
  Tensor gradientIn(Backend& backend, Parameter& p, DType dtype);
  // Every kept cast from its parameter's current value, in one op.
  void refreshValues(Backend& backend);
  // Every kept gradient buffer into its parameter's gradient, in one op.
  void castGradients(Backend& backend);

 private:
  struct Kept {
    Parameter* parameter = nullptr;
    Tensor tensor;
  };
  static Tensor* find(std::vector<Kept>& kept, const Parameter& p, DType dtype);
  std::vector<Kept> values_;
  std::vector<Kept> gradients_;
};

// What a forward or backward call needs besides its tensors.
struct LayerContext {
  Backend& backend;
  const AutocastPolicy& policy;
  DType autocast = DType::kFp32;  // autocast's low precision; kFp32: autocast off
  bool training = true;
  ParameterCasts* casts = nullptr;  // kept parameter casts (training); nullptr: cast per call
};

class Layer {
 public:
  explicit Layer(std::string name) : name_(std::move(name)) {}
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  const std::string& name() const { return name_; }
  virtual std::string_view op() const = 0;  // the op name autocast decides by: "linear", "conv2d", ...
  virtual Shape outputShape(const Shape& input) const = 0;
  virtual Tensor forward(LayerContext& ctx, const Tensor& x) = 0;
  virtual Tensor backward(LayerContext& ctx, const Tensor& dy) = 0;
  // Drops what the forward kept for the backward. Each backward ends with it, so a step frees
  // every tensor it made (a captured CUDA graph needs that); a step broken off calls it too.
  virtual void releaseSaved() {}
  virtual std::vector<Parameter*> parameters() { return {}; }
  // Sets the parameters' starting values, drawn from seed (PyTorch's default initialisations).
  virtual void initialize(Backend& /*backend*/, std::uint64_t /*seed*/) {}
  // The op's own figures for the instrumentation text beyond shapes: "gemm=M,N,K", "conv=...".
  virtual std::string geometry(const Shape& /*input*/) const { return {}; }

 protected:
  // x in dtype, cast if it is not (autocast's cast; a no-op when it already is).
  static Tensor castTo(LayerContext& ctx, const Tensor& x, DType dtype);
  // A parameter's value in dtype: its kept cast where the context keeps them, else castTo.
  static Tensor parameterIn(LayerContext& ctx, Parameter& p, DType dtype);
  // Where to compute p's gradient in the compute dtype: p.grad itself when the dtypes agree,
  // else a buffer that keepGradient, or the context's castGradients, casts into p.grad
  // (autocast's cast backward).
  static Tensor gradientBuffer(LayerContext& ctx, Parameter& p, DType compute);
  static void keepGradient(LayerContext& ctx, Parameter& p, const Tensor& computed);

 private:
  std::string name_;
};

// Uniform values in [-bound, bound) from seed, the same on every platform.
std::vector<float> uniformValues(std::int64_t count, float bound, std::uint64_t seed);

// Allocates a parameter of the given shape in dtype (FP32 when always_fp32) with its gradient.
Parameter makeParameter(Backend& backend, std::string name, const Shape& shape, DType dtype, bool always_fp32 = false);

// Values [outer, channels, inner] laid out channels first, laid out [outer, inner, channels]: a
// filter KCRS as KRSC, images NCHW as NHWC.
std::vector<float> channelsLastOf(const std::vector<float>& first, std::int64_t outer, std::int64_t channels,
                                  std::int64_t inner);

// A layer whose op multiplies its input by a weight, as a GEMM, and adds a bias per output
// channel (Linear, Conv2d): what they keep, initialise and hand back alike.
class MatrixLayer : public Layer {
 public:
  void releaseSaved() override {
    saved_x_ = Tensor();
    saved_w_ = Tensor();
  }
  std::vector<Parameter*> parameters() override { return {&weight_, &bias_}; }

 protected:
  // The bias has one value per output channel, the weight's first dimension.
  MatrixLayer(Backend& backend, std::string name, const Shape& weight_shape, DType param_dtype);
  // PyTorch's default for both: kaiming_uniform(a = sqrt(5)) gives bound 1/sqrt(fan_in), for the
  // bias too. The weight's values are drawn in its shape's order; `channels`, where above 1, lays
  // them out channels last (channelsLastOf over [rows, channels, the rest]) as its memory holds
  // them.
  void initializeUniform(Backend& backend, std::uint64_t seed, std::int64_t fan_in, std::int64_t channels = 1);
  // Keeps the input and the weight as the op reads them, in the compute dtype, for the backward;
  // returns the bias in it.
  Tensor keepOperands(LayerContext& ctx, const Tensor& x, DType compute);
  // The bias's gradient from the output's, over dy viewed as [outer, channels, inner], then what
  // the forward kept is dropped: the end of a backward.
  void finishBackward(LayerContext& ctx, const Tensor& dy, std::int64_t channels, std::int64_t inner);

  Parameter weight_;
  Parameter bias_;
  Tensor saved_x_;  // the input as the op read it (in the compute dtype)
  Tensor saved_w_;
};

// y = x W^T + b for x [batch, in], W [out, in]: one GEMM with M = batch, N = out, K = in forward;
// backward dx = dy W (M = batch, N = in, K = out) and dW = dy^T x (M = out, N = in, K = batch).
class Linear final : public MatrixLayer {
 public:
  // `flattened_channels`: 0, or the channels of the channels-last activation its input flattens
  // ([n, c, h, w] lying as [n, h, w, c]): its weight's columns are then laid out pixel by pixel,
  // so that it computes what it computes after a channels-first flatten (torch's flatten of a
  // channels_last tensor gives the features in [c, h, w] order).
  Linear(Backend& backend, std::string name, std::int64_t in_features, std::int64_t out_features, DType param_dtype,
         std::int64_t flattened_channels = 0);

  std::string_view op() const override { return "linear"; }
  Shape outputShape(const Shape& input) const override { return {input.at(0), out_}; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  void initialize(Backend& backend, std::uint64_t seed) override;
  std::string geometry(const Shape& input) const override;

 private:
  std::int64_t in_;
  std::int64_t out_;
  std::int64_t flattened_channels_;
};

// A 2-D convolution over [n, c, h, w] (NCHW or NHWC, Conv2dShape::layout) with a square kernel,
// stride and zero padding, plus a per-channel bias. As a GEMM (what Tensor Cores see): M = N*P*Q, N = K (output channels), K = C*R*S.
struct Conv2dShape {
  std::int64_t in_channels = 1;
  std::int64_t out_channels = 8;
  std::int64_t kernel = 3;
  std::int64_t stride = 1;
  std::int64_t pad = 1;
  // How its input, output and filter lie in memory; the filter's values are the same either way
  // (initialised in [k, c, r, s] order and laid out KRSC channels last).
  MemoryLayout layout = MemoryLayout::kChannelsFirst;
};

class Conv2d final : public MatrixLayer {
 public:
  Conv2d(Backend& backend, std::string name, const Conv2dShape& shape, DType param_dtype);

  std::string_view op() const override { return "conv2d"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  void initialize(Backend& backend, std::uint64_t seed) override;
  std::string geometry(const Shape& input) const override;

 private:
  ConvGeometry geometryFor(const Shape& input) const;

  Conv2dShape shape_;
  ConvGeometry saved_geometry_;
};

// Batch norm (per channel over batch and space, with running statistics for evaluation) and layer
// norm (per row over the features). Statistics are FP32 in every mode; gamma and beta stay FP32.
class BatchNorm final : public Layer {
 public:
  // `layout`: how a 4-D input lies (channels last, each pixel's channels are its innermost values).
  BatchNorm(Backend& backend, std::string name, std::int64_t channels,
            MemoryLayout layout = MemoryLayout::kChannelsFirst);

  std::string_view op() const override { return "batch_norm"; }
  Shape outputShape(const Shape& input) const override { return input; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  void releaseSaved() override { saved_x_ = Tensor(); }
  std::vector<Parameter*> parameters() override { return {&gamma_, &beta_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;

  static constexpr float kMomentum = 0.1f;
  static constexpr float kEps = 1e-5f;

 private:
  std::int64_t valuesPerChannel(const Tensor& x) const;

  std::int64_t channels_;
  MemoryLayout layout_;
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
  void releaseSaved() override {
    saved_x_ = Tensor();
    saved_mean_ = Tensor();
    saved_inv_std_ = Tensor();
  }
  std::vector<Parameter*> parameters() override { return {&gamma_, &beta_}; }
  void initialize(Backend& backend, std::uint64_t seed) override;

  static constexpr float kEps = 1e-5f;

 private:
  std::int64_t features_;
  Parameter gamma_;
  Parameter beta_;
  Tensor saved_x_, saved_mean_, saved_inv_std_;
};

// Layers without parameters: activations (ReLU, GELU), pooling (max, average) and flatten. They
// compute in their input's dtype (autocast's "follow the inputs" list).
class ActivationLayer final : public Layer {
 public:
  ActivationLayer(std::string name, Activation kind) : Layer(std::move(name)), kind_(kind) {}
  std::string_view op() const override { return kind_ == Activation::kRelu ? "relu" : "gelu"; }
  Shape outputShape(const Shape& input) const override { return input; }
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  void releaseSaved() override { saved_x_ = Tensor(); }

 private:
  Activation kind_;
  Tensor saved_x_;
};

class Pool2d final : public Layer {
 public:
  Pool2d(std::string name, PoolKind kind, std::int64_t window, MemoryLayout layout = MemoryLayout::kChannelsFirst)
      : Layer(std::move(name)), kind_(kind), window_(window), layout_(layout) {}
  std::string_view op() const override { return kind_ == PoolKind::kMax ? "max_pool2d" : "avg_pool2d"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;
  void releaseSaved() override { saved_x_ = Tensor(); }

 private:
  PoolGeometry geometryFor(const Shape& input) const;
  PoolKind kind_;
  std::int64_t window_;
  MemoryLayout layout_;
  Tensor saved_x_;
};

// [n, ...] -> [n, product of the rest]; shares memory.
class Flatten final : public Layer {
 public:
  explicit Flatten(std::string name) : Layer(std::move(name)) {}
  std::string_view op() const override { return "flatten"; }
  Shape outputShape(const Shape& input) const override;
  Tensor forward(LayerContext& ctx, const Tensor& x) override;
  Tensor backward(LayerContext& ctx, const Tensor& dy) override;

 private:
  Shape input_shape_;
};

}  // namespace ampscope::trainer
