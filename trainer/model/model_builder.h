#pragma once
// The models the trainer offers for 28x28 single-channel images, sized from the command line so
// a user can build one whose dimensions break the multiple-of-8 rule on purpose:
//   mlp  flatten -> [linear(hidden_i) -> activation]* -> linear(classes)
//   cnn  [conv3x3(channels_i) -> batch norm -> activation -> max pool 2]* -> flatten
//        -> linear(fc) -> activation -> linear(classes)

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {

struct ModelSpec {
  std::string kind = "mlp";
  std::vector<std::int64_t> hidden = {256, 128};  // mlp
  std::vector<std::int64_t> channels = {16, 32};  // cnn
  std::int64_t fc = 128;                          // cnn
  Activation activation = Activation::kRelu;
  bool layer_norm = false;  // mlp: layer norm after each hidden linear
  std::int64_t channels_in = 1, height = 28, width = 28, classes = 10;
};

// Errors name the offending setting (unknown kind, non-positive sizes, pooling below 1 pixel).
Result<std::unique_ptr<Model>> buildModel(Backend& backend, const ModelSpec& spec, DType parameter_dtype);

// "mlp 784-256-128-10" / "cnn 1x28x28 c16-c32 fc128 10".
std::string describeModel(const ModelSpec& spec);

}  // namespace ampscope::trainer
