#pragma once
// A run's loss scaling and step log, kept in the memory the step's kernels run on, so that a
// steady step never waits for the host. The rules are GradScaler's (torch.amp): the loss is
// multiplied by the scale; unscaling the gradients sets found_inf when one is Inf or NaN; the
// step's end then skips the update and multiplies the scale by backoff_factor, or counts a clean
// step and multiplies the scale by growth_factor after growth_interval of them in a row
// (torch's _amp_update_scale_). Without scaling nothing is skipped: overflowing FP16 then
// corrupts the weights, the failure loss scaling exists to prevent.
//
// Each step writes its figures into the log entry of its slot (the loss's rows, the rows right,
// the scale, the skip, the gradient norm); the host reads the entries every few steps
// (TrainConfig::log_every). Both backends run these functions: the CPU on its host copy, the GPU
// in one-thread kernels.

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "trainer/numerics/host_device.h"

namespace ampscope::trainer {

enum class LossScaling : std::int32_t { kNone, kConstant, kDynamic };

struct ScalerState {
  float scale = 1.0f;               // what this step's loss is multiplied by
  std::int32_t growth_tracker = 0;  // clean steps in a row since the scale last changed
  std::int32_t found_inf = 0;       // 1 once a gradient of this step was Inf or NaN
  std::int32_t skipped_steps = 0;   // over the run
  std::int32_t applied_steps = 0;   // updates applied over the run (AdamW's step count)
  std::int32_t slot = 0;            // the log entry of the step under way
  std::int32_t slots = 1;           // how many entries the log has
  float clip_factor = 1.0f;         // what this step's gradients were multiplied by to clip them
  // The optimizer's learning rate for this step, set by the host before it (setLearningRate):
  // read from here, a replayed CUDA graph of the step takes each step's rate.
  float learning_rate = 0.0f;
  // The rule, fixed for the run.
  LossScaling mode = LossScaling::kNone;
  std::int32_t growth_interval = 2000;
  float growth_factor = 2.0f;
  float backoff_factor = 0.5f;
};

struct StepLogEntry {
  double gradient_norm_squared = 0.0;  // of the unscaled gradients; 0 for a skipped step
  float loss_scale = 1.0f;             // the scale this step's loss was multiplied by
  std::int32_t skipped = 0;            // 1: Inf/NaN gradients, the update was not applied
  std::int32_t correct = 0;            // rows whose argmax was the label
  std::int32_t rows = 0;               // rows of the batch; their losses follow the entries
};

// Where the parts lie in one block: the scaler state, `slots` entries, then `max_rows` row losses
// (FP32) per entry. Offsets are multiples of 256 bytes, as device allocations are aligned.
struct StepStateLayout {
  std::int32_t slots = 1;
  std::int32_t max_rows = 1;

  static constexpr std::size_t kAlignment = 256;
  static constexpr std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }
  static constexpr std::size_t scalerOffset() { return 0; }
  static constexpr std::size_t entriesOffset() { return aligned(sizeof(ScalerState)); }
  std::size_t lossesOffset() const {
    return entriesOffset() + aligned(static_cast<std::size_t>(slots) * sizeof(StepLogEntry));
  }
  std::size_t bytes() const {
    return lossesOffset() + static_cast<std::size_t>(slots) * static_cast<std::size_t>(max_rows) * sizeof(float);
  }
};

// Typed pointers into a block laid out by StepStateLayout, on the host or the device.
struct StepStateView {
  ScalerState* scaler = nullptr;
  StepLogEntry* entries = nullptr;
  float* row_losses = nullptr;
  std::int32_t max_rows = 1;

  AMPSCOPE_HD StepLogEntry& current() const { return entries[scaler->slot]; }
  AMPSCOPE_HD float* currentLosses() const { return row_losses + static_cast<std::int64_t>(scaler->slot) * max_rows; }
};

inline StepStateView stepStateView(void* base, const StepStateLayout& layout) {
  auto* bytes = static_cast<unsigned char*>(base);
  return {reinterpret_cast<ScalerState*>(bytes + StepStateLayout::scalerOffset()),
          reinterpret_cast<StepLogEntry*>(bytes + StepStateLayout::entriesOffset()),
          reinterpret_cast<float*>(bytes + layout.lossesOffset()), layout.max_rows};
}

namespace math {

// Whether this step's update is masked out (GradScaler skips optimizer.step()).
AMPSCOPE_HD bool skipsUpdate(const ScalerState& s) { return s.mode != LossScaling::kNone && s.found_inf != 0; }

// 1 / scale, computed in double and rounded once, as the host computed it.
AMPSCOPE_HD float inverseScale(const ScalerState& s) { return static_cast<float>(1.0 / static_cast<double>(s.scale)); }

// The factor that brings a global norm down to max_norm (torch.nn.utils.clip_grad_norm_), or 1.
AMPSCOPE_HD float clipFactor(double norm_squared, float max_norm) {
  const double norm = sqrt(norm_squared);
  return max_norm > 0.0f && norm > static_cast<double>(max_norm) ? static_cast<float>(max_norm / (norm + 1e-6)) : 1.0f;
}

// The end of a step: records its scale and skip in its log entry, updates the scale by the rule,
// clears the flag and moves to the next slot.
AMPSCOPE_HD void finishStep(ScalerState& s, StepLogEntry& entry) {
  const bool skip = skipsUpdate(s);
  entry.loss_scale = s.scale;
  entry.skipped = skip ? 1 : 0;
  if (skip) {
    ++s.skipped_steps;
    s.growth_tracker = 0;
    if (s.mode == LossScaling::kDynamic) s.scale *= s.backoff_factor;
  } else {
    ++s.applied_steps;
    if (s.mode == LossScaling::kDynamic && ++s.growth_tracker >= s.growth_interval) {
      s.scale *= s.growth_factor;
      s.growth_tracker = 0;
    }
  }
  s.found_inf = 0;
  s.clip_factor = 1.0f;
  s.slot = s.slot + 1 < s.slots ? s.slot + 1 : 0;
}

// AdamW's bias corrections for the update about to be applied, in double and rounded once.
AMPSCOPE_HD float biasCorrection(float beta, std::int32_t step) {
  return static_cast<float>(1.0 - pow(static_cast<double>(beta), static_cast<double>(step)));
}

}  // namespace math
}  // namespace ampscope::trainer
