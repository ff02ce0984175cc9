#include "trainer/optim/optimizer.h"

namespace ampscope::trainer {

std::optional<OptimizerKind> parseOptimizerKind(std::string_view text) {
  if (text == "sgd") return OptimizerKind::kSgd;
  if (text == "adamw") return OptimizerKind::kAdamW;
  return std::nullopt;
}

Optimizer::Optimizer(Backend& backend, const OptimizerConfig& config, std::vector<Parameter*> parameters,
                     bool master_weights)
    : backend_(backend), config_(config), parameters_(std::move(parameters)) {
  for (Parameter* p : parameters_) {
    if (master_weights && p->value.dtype() != DType::kFp32) {
      p->master = backend_.allocate(p->value.shape(), DType::kFp32);
      p->master_grad = backend_.allocate(p->value.shape(), DType::kFp32);
      backend_.copy(p->value, p->master);
    }
    // Optimizer state lives beside what it updates, in its dtype.
    const DType state_dtype = p->updated().dtype();
    p->state1 = backend_.allocate(p->value.shape(), state_dtype);
    backend_.fill(p->state1, 0.0f);
    if (config_.kind == OptimizerKind::kAdamW) {
      p->state2 = backend_.allocate(p->value.shape(), state_dtype);
      backend_.fill(p->state2, 0.0f);
    }
  }
  for (Parameter* p : parameters_) {
    if (p->master_grad.defined()) {
      low_precision_grads_.push_back(&p->grad);
      master_grads_.push_back(&p->master_grad);
    }
    gradients_.push_back(&p->updatedGrad());
    updates_.push_back({&p->updated(), &p->updatedGrad(), &p->state1, p->state2.defined() ? &p->state2 : nullptr,
                        p->master.defined() ? &p->value : nullptr});
  }
}

std::span<Tensor* const> Optimizer::prepareGradients() {
  if (!master_grads_.empty()) backend_.copyAll(low_precision_grads_, master_grads_);
  return gradients_;
}

void Optimizer::clipGradients(StepStateMemory& state) { backend_.clipGradients(gradients_, config_.clip_grad_norm, state); }

void Optimizer::step(const StepStateMemory& state) {
  if (config_.kind == OptimizerKind::kSgd) {
    backend_.sgdStep({config_.momentum, config_.weight_decay}, updates_, state);
  } else {
    backend_.adamWStep({config_.beta1, config_.beta2, config_.eps, config_.weight_decay}, updates_, state);
  }
}

}  // namespace ampscope::trainer
