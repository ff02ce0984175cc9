#include "trainer/model/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "trainer/layers/layers.h"

namespace ampscope::trainer {

void Model::initialize(Backend& backend, std::uint64_t seed) {
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i]->initialize(backend, seed * 1000003ULL + i);
}

Tensor Model::forward(LayerContext& ctx, const Tensor& x, LayerObserver* observer) {
  input_shapes_.clear();
  input_dtypes_.clear();
  Tensor current = x;
  for (const auto& layer : layers_) {
    input_shapes_.push_back(current.shape());
    input_dtypes_.push_back(current.dtype());
    if (observer) observer->beginLayer(*layer, Pass::kForward, current.shape(), current.dtype());
    current = layer->forward(ctx, current);
    if (observer) observer->endLayer(*layer, Pass::kForward);
  }
  return current;
}

Tensor Model::backward(LayerContext& ctx, const Tensor& dy, LayerObserver* observer) {
  Tensor current = dy;
  for (std::size_t i = layers_.size(); i-- > 0;) {
    Layer& layer = *layers_[i];
    if (observer) observer->beginLayer(layer, Pass::kBackward, input_shapes_[i], input_dtypes_[i]);
    current = layer.backward(ctx, current);
    if (observer) observer->endLayer(layer, Pass::kBackward);
  }
  return current;
}

std::vector<Parameter*> Model::parameters() {
  std::vector<Parameter*> out;
  for (const auto& layer : layers_) {
    for (Parameter* p : layer->parameters()) out.push_back(p);
  }
  return out;
}

std::int64_t Model::parameterCount() {
  std::int64_t count = 0;
  for (Parameter* p : parameters()) count += p->value.numel();
  return count;
}

namespace {

Status checkSizes(const std::vector<std::int64_t>& sizes, const char* option) {
  for (std::int64_t size : sizes) {
    if (size <= 0 || size > (1 << 20)) {
      return Error{fmt::format("model: {} size {} out of range (1 to {})", option, size, 1 << 20)};
    }
  }
  return {};
}

std::unique_ptr<Model> buildMlp(Backend& backend, const ModelSpec& spec, DType dtype) {
  auto model = std::make_unique<Model>();
  model->add(std::make_unique<Flatten>("flatten"));
  std::int64_t features = spec.channels_in * spec.height * spec.width;
  for (std::size_t i = 0; i < spec.hidden.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    model->add(std::make_unique<Linear>(backend, "fc" + n, features, spec.hidden[i], dtype));
    if (spec.layer_norm) model->add(std::make_unique<LayerNorm>(backend, "ln" + n, spec.hidden[i]));
    model->add(std::make_unique<ActivationLayer>("act" + n, spec.activation));
    features = spec.hidden[i];
  }
  model->add(std::make_unique<Linear>(backend, "fc" + std::to_string(spec.hidden.size() + 1), features, spec.classes,
                                      dtype));
  return model;
}

Result<std::unique_ptr<Model>> buildCnn(Backend& backend, const ModelSpec& spec, DType dtype) {
  auto model = std::make_unique<Model>();
  std::int64_t channels = spec.channels_in;
  std::int64_t height = spec.height;
  std::int64_t width = spec.width;
  const MemoryLayout layout = inputLayout(spec);
  for (std::size_t i = 0; i < spec.channels.size(); ++i) {
    if (height < 2 || width < 2) {
      return Error{fmt::format("model: {} convolution blocks pool a {}x{} image below one pixel",
                               spec.channels.size(), spec.height, spec.width)};
    }
    const std::string n = std::to_string(i + 1);
    model->add(std::make_unique<Conv2d>(backend, "conv" + n,
                                        Conv2dShape{.in_channels = channels, .out_channels = spec.channels[i],
                                                    .kernel = 3, .stride = 1, .pad = 1, .layout = layout},
                                        dtype));
    model->add(std::make_unique<BatchNorm>(backend, "bn" + n, spec.channels[i], layout));
    model->add(std::make_unique<ActivationLayer>("act" + n, spec.activation));
    model->add(std::make_unique<Pool2d>("pool" + n, PoolKind::kMax, 2, layout));
    channels = spec.channels[i];
    height /= 2;
    width /= 2;
  }
  model->add(std::make_unique<Flatten>("flatten"));
  model->add(std::make_unique<Linear>(backend, "fc1", channels * height * width, spec.fc, dtype,
                                      layout == MemoryLayout::kChannelsLast ? channels : 0));
  model->add(std::make_unique<ActivationLayer>("act_fc", spec.activation));
  model->add(std::make_unique<Linear>(backend, "fc2", spec.fc, spec.classes, dtype));
  return model;
}

}  // namespace

Result<std::unique_ptr<Model>> buildModel(Backend& backend, const ModelSpec& spec, DType parameter_dtype) {
  if (spec.kind == "mlp") {
    if (spec.channels_last) {
      return Error{"model: --channels-last lays out a CNN's convolutions; an MLP has none (use --model cnn)"};
    }
    if (auto s = checkSizes(spec.hidden, "--hidden"); !s) return s.error();
    return buildMlp(backend, spec, parameter_dtype);
  }
  if (spec.kind == "cnn") {
    if (auto s = checkSizes(spec.channels, "--channels"); !s) return s.error();
    if (auto s = checkSizes({spec.fc}, "--fc"); !s) return s.error();
    return buildCnn(backend, spec, parameter_dtype);
  }
  return Error{fmt::format("model: unknown kind '{}' (expected mlp or cnn)", spec.kind)};
}

MemoryLayout inputLayout(const ModelSpec& spec) {
  return spec.kind == "cnn" && spec.channels_last ? MemoryLayout::kChannelsLast : MemoryLayout::kChannelsFirst;
}

std::vector<float> imagesLaidOut(const std::vector<float>& nchw, const Shape& shape, MemoryLayout layout) {
  if (layout == MemoryLayout::kChannelsFirst) return nchw;
  return channelsLastOf(nchw, shape.at(0), shape.at(1), shape.at(2) * shape.at(3));
}

std::string describeModel(const ModelSpec& spec) {
  if (spec.kind == "cnn") {
    return fmt::format("cnn {}x{}x{} conv {} fc {} -> {}{}", spec.channels_in, spec.height, spec.width,
                       fmt::join(spec.channels, "-"), spec.fc, spec.classes,
                       spec.channels_last ? ", channels last" : "");
  }
  return fmt::format("mlp {}-{}-{}{}", spec.channels_in * spec.height * spec.width, fmt::join(spec.hidden, "-"),
                     spec.classes, spec.layer_norm ? " with layer norm" : "");
}

}  // namespace ampscope::trainer
