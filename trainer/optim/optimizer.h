#pragma once
// SGD with momentum and AdamW over a model's parameters. Each updates Parameter::updated(): the
// FP32 master copy where the precision mode keeps one (then written back into the FP16 weights the
// forward reads, in the same pass), else the weights themselves, in their own dtype (FP16 in
// fp16-pure mode, where small updates round away). Every op covers all parameters at once
// (the backend's multi-tensor ops) and is masked on the device when the loss scaler skips the
// step, so nothing here waits for the device.

#include <optional>
#include <string_view>
#include <vector>

#include "trainer/layers/layers.h"

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

  // The gradients the step reads, in the parameters' order, after copying FP16 gradients into
  // the master gradients.
  std::span<Tensor* const> prepareGradients();
  // The global norm of the gradients into the step's log entry, and the gradients scaled down to
  // clip_grad_norm when it is exceeded; nothing when the step is skipped.
  void clipGradients(StepStateMemory& state);
  // The update at the learning rate in the state (the run sets it there before the step).
  void step(const StepStateMemory& state);
  void setLearningRate(float lr) { config_.lr = lr; }
  float learningRate() const { return config_.lr; }

 private:
  Backend& backend_;
  OptimizerConfig config_;
  std::vector<Parameter*> parameters_;
  // Set up once: what each op of the step reads and writes.
  std::vector<const Tensor*> low_precision_grads_;  // copied into...
  std::vector<Tensor*> master_grads_;               // ...these
  std::vector<Tensor*> gradients_;                  // what the update reads, one per parameter
  std::vector<ParameterTensors> updates_;
};

}  // namespace ampscope::trainer
