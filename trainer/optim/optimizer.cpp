#include "trainer/optim/optimizer.h"

#include <cmath>

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
}

std::vector<Tensor*> Optimizer::prepareGradients() {
  std::vector<Tensor*> grads;
  for (Parameter* p : parameters_) {
    if (p->master_grad.defined()) backend_.copy(p->grad, p->master_grad);
    grads.push_back(&p->updatedGrad());
  }
  return grads;
}

double Optimizer::clipGradients() {
  double squares = 0;
  for (Parameter* p : parameters_) squares += backend_.squaredNorm(p->updatedGrad());
  const double norm = std::sqrt(squares);
  if (config_.clip_grad_norm > 0 && norm > config_.clip_grad_norm) {
    const auto factor = static_cast<float>(config_.clip_grad_norm / (norm + 1e-6));
    for (Parameter* p : parameters_) backend_.scale(p->updatedGrad(), factor);
  }
  return norm;
}

void Optimizer::step() {
  ++steps_;
  for (Parameter* p : parameters_) {
    if (config_.kind == OptimizerKind::kSgd) {
      backend_.sgdStep({config_.lr, config_.momentum, config_.weight_decay}, p->updated(), p->updatedGrad(), p->state1);
    } else {
      backend_.adamWStep({config_.lr, config_.beta1, config_.beta2, config_.eps, config_.weight_decay}, steps_,
                         p->updated(), p->updatedGrad(), p->state1, p->state2);
    }
    if (p->master.defined()) backend_.copy(p->master, p->value);
  }
}

}  // namespace ampscope::trainer
