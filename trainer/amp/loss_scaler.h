#pragma once
// Loss scaling with PyTorch GradScaler semantics: multiply the loss by the scale before backward;
// after it, unscale the gradients (before clipping and weight decay), and if any is Inf/NaN skip
// the update and back the scale off; after growth_interval clean steps in a row, grow it. The
// state and its rules live with the step's kernels (trainer/numerics/step_state.h); this is the
// run's choice of them.

#include <cstdint>

#include "trainer/numerics/step_state.h"

namespace ampscope::trainer {

struct LossScalerConfig {
  LossScaling mode = LossScaling::kDynamic;
  double initial_scale = 65536.0;  // 2^16, GradScaler's default
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
};

// The state a run starts from, its log `slots` entries long. The scale is held in FP32, as
// GradScaler holds it: powers of two, and any scale of a few significant digits, are exact.
ScalerState initialScalerState(const LossScalerConfig& config, std::int32_t slots);

}  // namespace ampscope::trainer
