#include "trainer/amp/loss_scaler.h"

#include <algorithm>
#include <limits>

namespace ampscope::trainer {

ScalerState initialScalerState(const LossScalerConfig& config, std::int32_t slots) {
  ScalerState s;
  s.mode = config.mode;
  s.scale = config.mode == LossScaling::kNone ? 1.0f : static_cast<float>(config.initial_scale);
  s.growth_factor = static_cast<float>(config.growth_factor);
  s.backoff_factor = static_cast<float>(config.backoff_factor);
  s.growth_interval = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(config.growth_interval, 1, std::numeric_limits<std::int32_t>::max()));
  s.slots = std::max<std::int32_t>(1, slots);
  return s;
}

}  // namespace ampscope::trainer
