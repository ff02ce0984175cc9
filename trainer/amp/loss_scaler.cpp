#include "trainer/amp/loss_scaler.h"

namespace ampscope::trainer {

LossScaler::LossScaler(const LossScalerConfig& config)
    : config_(config), scale_(config.mode == LossScaling::kNone ? 1.0 : config.initial_scale) {}

bool LossScaler::update(bool found_non_finite) {
  if (config_.mode == LossScaling::kNone) return true;
  if (found_non_finite) {
    ++skipped_steps_;
    clean_steps_ = 0;
    if (config_.mode == LossScaling::kDynamic) scale_ *= config_.backoff_factor;
    return false;
  }
  if (config_.mode == LossScaling::kDynamic && ++clean_steps_ >= config_.growth_interval) {
    scale_ *= config_.growth_factor;
    clean_steps_ = 0;
  }
  return true;
}

}  // namespace ampscope::trainer
