#pragma once
// A model is a sequence of layers. Forward and backward walk it, telling an observer (the
// instrumentation) where each layer's work begins and ends. Below it, the models the trainer
// offers, built from a ModelSpec.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "trainer/layers/layers.h"

namespace ampscope::trainer {

enum class Pass { kForward, kBackward };

class LayerObserver {
 public:
  virtual ~LayerObserver() = default;
  // input: what the layer reads in this pass (x forward, dy backward); input_shape: x's shape.
  virtual void beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) = 0;
  virtual void endLayer(Layer& layer, Pass pass) = 0;
};

class Model {
 public:
  void add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }

  void initialize(Backend& backend, std::uint64_t seed);
  Tensor forward(LayerContext& ctx, const Tensor& x, LayerObserver* observer = nullptr);
  Tensor backward(LayerContext& ctx, const Tensor& dy, LayerObserver* observer = nullptr);
  // Every layer drops what its forward kept (after a step broken off before its backward).
  void releaseSaved() {
    for (const std::unique_ptr<Layer>& layer : layers_) layer->releaseSaved();
  }
  std::vector<Parameter*> parameters();
  std::int64_t parameterCount();

 private:
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Shape> input_shapes_;  // per layer, from the last forward
  std::vector<DType> input_dtypes_;
};

// The models the trainer offers for 28x28 single-channel images, sized from the command line so
// a user can build one whose dimensions break the multiple-of-8 rule on purpose:
//   mlp  flatten -> [linear(hidden_i) -> activation]* -> linear(classes)
//   cnn  [conv3x3(channels_i) -> batch norm -> activation -> max pool 2]* -> flatten
//        -> linear(fc) -> activation -> linear(classes)
struct ModelSpec {
  std::string kind = "mlp";
  std::vector<std::int64_t> hidden = {256, 128};  // mlp
  std::vector<std::int64_t> channels = {16, 32};  // cnn
  std::int64_t fc = 128;                          // cnn
  Activation activation = Activation::kRelu;
  bool layer_norm = false;  // mlp: layer norm after each hidden linear
  // cnn: activations NHWC and filters KRSC (torch.channels_last), as cuDNN's Tensor Core
  // convolutions take them; the images are laid out so on their way to the device.
  bool channels_last = false;
  std::int64_t channels_in = 1, height = 28, width = 28, classes = 10;
};

// Errors name the offending setting (unknown kind, non-positive sizes, pooling below 1 pixel).
Result<std::unique_ptr<Model>> buildModel(Backend& backend, const ModelSpec& spec, DType parameter_dtype);

// How the model's input images lie in memory.
MemoryLayout inputLayout(const ModelSpec& spec);

// A batch of images [n, c, h, w], given channels first, as `layout` lays them out (NHWC channels
// last; the same values where c is 1).
std::vector<float> imagesLaidOut(const std::vector<float>& nchw, const Shape& shape, MemoryLayout layout);

// "mlp 784-256-128-10" / "cnn 1x28x28 conv 16-32 fc 128 -> 10" (", channels last" where so).
std::string describeModel(const ModelSpec& spec);

}  // namespace ampscope::trainer
