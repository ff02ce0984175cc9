// Every layer's backward against central finite differences of its forward. The forward runs in
// FP32 (the CPU backend's arithmetic); the loss sum(y * r) and the differences are taken in FP64,
// and the step is large enough (1e-2 relative to O(1) inputs) that FP32 rounding of the forward
// stays well below the tolerance.
#include <gtest/gtest.h>

#include "trainer/amp/mixed_precision.h"

#include <cmath>
#include <functional>

#include "trainer/layers/layers.h"

namespace ampscope::trainer {
namespace {

constexpr double kStep = 1e-2;

class GradientCheck {
 public:
  GradientCheck() : backend_(makeCpuBackend()), ctx_{*backend_, policy_, DType::kFp32, true} {}

  Backend& backend() { return *backend_; }

  Tensor randomTensor(const Shape& shape, std::uint64_t seed, float bound = 1.0f) {
    Tensor t = backend_->allocate(shape, DType::kFp32);
    backend_->upload(uniformValues(elementCount(shape), bound, seed), t);
    return t;
  }

  // Checks d(sum(layer(x) * r))/dx and /dparameters at up to `samples` entries of each.
  // input: the values of x, when the default random ones would not do.
  void run(Layer& layer, const Shape& input_shape, std::uint64_t seed, std::vector<float> input = {},
           int samples = 24) {
    layer.initialize(*backend_, seed);
    // Parameters away from their neat initial values (ones and zeros for the norms).
    for (Parameter* p : layer.parameters()) {
      backend_->upload(uniformValues(p->value.numel(), 1.0f, seed + p->value.numel()), p->value);
    }
    Tensor x = randomTensor(input_shape, seed + 1);
    if (!input.empty()) backend_->upload(input, x);
    const Tensor r = randomTensor(layer.outputShape(input_shape), seed + 2);
    const auto loss = [&]() {
      const Tensor y = layer.forward(ctx_, x);
      double sum = 0;
      for (std::int64_t i = 0; i < y.numel(); ++i) sum += static_cast<double>(y.cpuData()[i]) * r.cpuData()[i];
      return sum;
    };
    loss();
    const Tensor dx = layer.backward(ctx_, r);
    compare("input", x, dx, loss, samples);
    for (Parameter* p : layer.parameters()) compare(p->name, p->value, p->grad, loss, samples);
  }

 private:
  void compare(const std::string& what, Tensor& values, const Tensor& analytic, const std::function<double()>& loss,
               int samples) {
    const std::vector<float> expected_grad = backend_->download(analytic);  // the next forwards reuse buffers
    const std::int64_t stride = std::max<std::int64_t>(1, values.numel() / samples);
    int checked = 0;
    for (std::int64_t i = 0; i < values.numel(); i += stride) {
      const float original = values.cpuData()[i];
      values.cpuData()[i] = original + static_cast<float>(kStep);
      const double plus = loss();
      values.cpuData()[i] = original - static_cast<float>(kStep);
      const double minus = loss();
      values.cpuData()[i] = original;
      const double numeric = (plus - minus) / (2 * kStep);
      const double ours = expected_grad[static_cast<std::size_t>(i)];
      EXPECT_NEAR(ours, numeric, 2e-3 + 1e-2 * std::max(std::fabs(numeric), std::fabs(ours)))
          << what << "[" << i << "]";
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }

  std::unique_ptr<Backend> backend_;
  AutocastPolicy policy_;
  LayerContext ctx_;
};

TEST(LayerGradientsTest, LinearMatchesFiniteDifferences) {
  GradientCheck check;
  Linear layer(check.backend(), "fc", 7, 5, DType::kFp32);
  check.run(layer, {3, 7}, 11);
}

TEST(LayerGradientsTest, Conv2dWithPaddingAndStrideMatchesFiniteDifferences) {
  GradientCheck check;
  Conv2d layer(check.backend(), "conv", {.in_channels = 2, .out_channels = 3, .kernel = 3, .stride = 2, .pad = 1},
               DType::kFp32);
  check.run(layer, {2, 2, 5, 5}, 12);
}

TEST(LayerGradientsTest, BatchNormInTrainingMatchesFiniteDifferences) {
  GradientCheck check;
  BatchNorm layer(check.backend(), "bn", 3);
  check.run(layer, {4, 3, 2, 2}, 13);
}

TEST(LayerGradientsTest, LayerNormMatchesFiniteDifferences) {
  GradientCheck check;
  LayerNorm layer(check.backend(), "ln", 6);
  check.run(layer, {4, 6}, 14);
}

TEST(LayerGradientsTest, ReluMatchesFiniteDifferences) {
  GradientCheck check;
  ActivationLayer layer("relu", Activation::kRelu);
  check.run(layer, {5, 8}, 15);
}

TEST(LayerGradientsTest, GeluMatchesFiniteDifferences) {
  GradientCheck check;
  ActivationLayer layer("gelu", Activation::kGelu);
  check.run(layer, {5, 8}, 16);
}

TEST(LayerGradientsTest, MaxPoolMatchesFiniteDifferences) {
  GradientCheck check;
  Pool2d layer("pool", PoolKind::kMax, 2);
  // Values 0.1 apart, so that no difference step changes which value is the maximum.
  std::vector<float> input(32);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = 0.1f * static_cast<float>((i * 13) % 32);
  check.run(layer, {2, 2, 4, 4}, 17, input);
}

TEST(LayerGradientsTest, AveragePoolMatchesFiniteDifferences) {
  GradientCheck check;
  Pool2d layer("pool", PoolKind::kAverage, 2);
  check.run(layer, {2, 2, 4, 4}, 18);
}

TEST(LayerGradientsTest, FlattenPassesGradientsThrough) {
  GradientCheck check;
  Flatten layer("flatten");
  check.run(layer, {2, 3, 2, 2}, 19);
}

TEST(LayerGradientsTest, SoftmaxCrossEntropyMatchesFiniteDifferences) {
  GradientCheck check;
  Backend& backend = check.backend();
  Tensor logits = check.randomTensor({4, 5}, 20, 3.0f);
  Tensor labels = backend.allocate({4}, DType::kFp32);
  backend.upload(std::vector<float>{0, 3, 4, 1}, labels);
  Tensor dlogits = backend.allocate({4, 5}, DType::kFp32);
  const float loss_scale = 8.0f;  // the gradient comes back scaled
  LossScalerConfig scaled;
  scaled.mode = LossScaling::kConstant;
  scaled.initial_scale = loss_scale;
  StepStateMemory at_scale = backend.allocateStepState({1, 4}, initialScalerState(scaled, 1));
  backend.softmaxCrossEntropy(logits, labels, at_scale, dlogits);
  StepStateMemory unscaled = backend.allocateStepState({1, 4}, initialScalerState({LossScaling::kNone}, 1));
  // The mean loss as the training run reads it from the step's log entry.
  const auto loss = [&] {
    Tensor scratch = backend.allocate({4, 5}, DType::kFp32);
    backend.softmaxCrossEntropy(logits, labels, unscaled, scratch);
    const StepLogRead log = backend.readStepLog(unscaled, 0, 1);
    double sum = 0;
    for (float row : log.row_losses[0]) sum += row;
    return sum / log.entries[0].rows;
  };
  for (std::int64_t i = 0; i < logits.numel(); ++i) {
    const float original = logits.cpuData()[i];
    logits.cpuData()[i] = original + static_cast<float>(kStep);
    const double plus = loss();
    logits.cpuData()[i] = original - static_cast<float>(kStep);
    const double minus = loss();
    logits.cpuData()[i] = original;
    const double numeric = (plus - minus) / (2 * kStep);
    EXPECT_NEAR(dlogits.cpuData()[i] / loss_scale, numeric, 1e-3 + 1e-2 * std::fabs(numeric)) << i;
  }
}

}  // namespace
}  // namespace ampscope::trainer
