#pragma once
// SGD with momentum and AdamW over a model's parameters. Each updates Parameter::updated(): the
// FP32 master copy where the precision mode keeps one (then copied back into the FP16 weights the
// forward reads), else the weights themselves, in their own dtype (FP16 in fp16-pure mode, where
// small updates round away).

#include <optional>
#include <string_view>
#include <vector>

#include "trainer/layers/layer.h"

namespace ampscope::trainer {

enum class OptimizerKind { kSgd, kAdamW };
std::optional<OptimizerKind> parseOptimizerKind(std::string_view text);  // "sgd", "adamw"

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  float lr = 0.05f;
  float momentum = 0.9f;        // SGD
  float weight_decay = 0.0f;    // SGD: coupled; AdamW: decoupled
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  // AdamW
  float clip_grad_norm = 0.0f;  // 0: no clipping; applied to the unscaled gradients
};

class Optimizer {
 public:
  // With master_weights, each parameter not kept FP32 gets an FP32 master copy of its value.
  Optimizer(Backend& backend, const OptimizerConfig& config, std::vector<Parameter*> parameters, bool master_weights);

  // The gradients the step reads, after copying FP16 gradients into the master gradients.
  std::vector<Tensor*> prepareGradients();
  // Scales the gradients down to clip_grad_norm when their global norm exceeds it; returns the
  // norm before clipping.
  double clipGradients();
  void step();
  void setLearningRate(float lr) { config_.lr = lr; }
  float learningRate() const { return config_.lr; }

 private:
  Backend& backend_;
  OptimizerConfig config_;
  std::vector<Parameter*> parameters_;
  std::int64_t steps_ = 0;
};

}  // namespace ampscope::trainer
