#pragma once
// A layer of a model: forward keeps what its backward needs; backward returns the input's
// gradient and writes its parameters' gradients. The dtype each op computes in comes from the
// autocast policy (trainer/amp/autocast_policy.h), so one layer serves every precision mode.

#include <string>
#include <string_view>
#include <vector>

#include "trainer/amp/autocast_policy.h"
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

// What a forward or backward call needs besides its tensors.
struct LayerContext {
  Backend& backend;
  const AutocastPolicy& policy;
  DType autocast = DType::kFp32;  // autocast's low precision; kFp32: autocast off
  bool training = true;
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
  virtual std::vector<Parameter*> parameters() { return {}; }
  // Sets the parameters' starting values, drawn from seed (PyTorch's default initialisations).
  virtual void initialize(Backend& /*backend*/, std::uint64_t /*seed*/) {}
  // The op's own figures for the instrumentation text beyond shapes: "gemm=M,N,K", "conv=...".
  virtual std::string geometry(const Shape& /*input*/) const { return {}; }

 protected:
  // x in dtype, cast if it is not (autocast's cast; a no-op when it already is).
  static Tensor castTo(LayerContext& ctx, const Tensor& x, DType dtype);
  // Where to compute p's gradient in the compute dtype: p.grad itself when the dtypes agree,
  // else a scratch tensor that keepGradient casts into p.grad (autocast's cast backward).
  static Tensor gradientBuffer(LayerContext& ctx, Parameter& p, DType compute);
  static void keepGradient(LayerContext& ctx, Parameter& p, const Tensor& computed);

 private:
  std::string name_;
};

// Uniform values in [-bound, bound) from seed, the same on every platform.
std::vector<float> uniformValues(std::int64_t count, float bound, std::uint64_t seed);

// Allocates a parameter of the given shape in dtype (FP32 when always_fp32) with its gradient.
Parameter makeParameter(Backend& backend, std::string name, const Shape& shape, DType dtype, bool always_fp32 = false);

}  // namespace ampscope::trainer
