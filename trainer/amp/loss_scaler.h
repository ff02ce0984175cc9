#pragma once
// Loss scaling with PyTorch GradScaler semantics: multiply the loss by the scale before backward;
// after it, unscale the gradients (before clipping and weight decay), and if any is Inf/NaN skip
// the update and back the scale off; after growth_interval clean steps in a row, grow it.

#include <cstdint>

namespace ampscope::trainer {

enum class LossScaling { kNone, kConstant, kDynamic };

struct LossScalerConfig {
  LossScaling mode = LossScaling::kDynamic;
  double initial_scale = 65536.0;  // 2^16, GradScaler's default
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
};

class LossScaler {
 public:
  explicit LossScaler(const LossScalerConfig& config = {});

  // The factor to multiply the loss by (1 when scaling is off).
  double scale() const { return scale_; }
  double inverseScale() const { return 1.0 / scale_; }

  // Called once per step after the gradients were checked for Inf/NaN; true when the optimizer
  // may apply this step. Without scaling nothing is skipped: overflowing FP16 then corrupts the
  // weights, the failure loss scaling exists to prevent.
  bool update(bool found_non_finite);

  std::int64_t skippedSteps() const { return skipped_steps_; }
  std::int64_t cleanStepsInARow() const { return clean_steps_; }
  LossScaling mode() const { return config_.mode; }

 private:
  LossScalerConfig config_;
  double scale_;
  std::int64_t clean_steps_ = 0;
  std::int64_t skipped_steps_ = 0;
};

}  // namespace ampscope::trainer
