#pragma once
// Mixed-precision numerics from the trainer's per-step counters and gradient histograms
// (docs/amp_numerics.md): the loss, the loss scale's history, skipped steps, and per parameter
// tensor the share of gradient values that FP16 rounds to zero at the recorded loss scale, over
// the whole run and over its last steps (gradients shrink as training converges, so underflow
// that is rare early can matter late).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// The trainer's per-step counter of the loss scale in force (trace::Counter::name).
inline constexpr std::string_view kLossScaleCounter = "loss_scale";

// The recent window is the last tenth of the steps with gradient counters (the trainer takes them
// every few steps: `train --numerics-every`), at least one; of all recorded steps when none has.
inline constexpr std::int64_t kRecentStepsDivisor = 10;

struct LossScaleChange {
  std::int64_t step = -1;
  double value = 0.0;  // the scale from this step on
};

// Consecutive steps [first, last].
struct StepRun {
  std::int64_t first = 0;
  std::int64_t last = 0;
};

struct GradientCounts {
  std::uint64_t values = 0;      // gradient values counted
  std::uint64_t zeros = 0;       // exactly zero after unscaling
  std::uint64_t underflow = 0;   // non-zero, but |g x loss scale| rounds to zero in FP16
  std::uint64_t non_finite = 0;  // Inf or NaN (the step was skipped)
  double zeroShare() const;       // of values; 0 when none
  double underflowShare() const;  // of values; 0 when none
};

struct TensorNumerics {
  std::string tensor;  // "fc1.weight"
  GradientCounts all;     // every recorded step
  GradientCounts recent;  // steps from AmpNumerics::recent_from_step on
  // From the gradient bins: |g| spans [2^smallest_exponent, 2^(largest_exponent+1)) before
  // scaling; has_bins false when the trace has no bins for the tensor.
  bool has_bins = false;
  std::int32_t smallest_exponent = 0;
  std::int32_t largest_exponent = 0;
  // From the bins: the share of its non-zero values that would underflow FP16 at
  // AmpNumerics::suggested_loss_scale (0 when there is no suggestion or no bins).
  double underflow_share_at_suggested_scale = 0.0;
};

struct AmpNumerics {
  bool recorded = false;  // the trace carries any of these counters or bins
  std::uint64_t steps = 0;  // distinct steps with a counter
  std::int64_t first_step = -1;
  std::int64_t last_step = -1;
  std::uint64_t histogram_steps = 0;  // distinct steps with gradient counters
  std::int64_t recent_from_step = -1;
  std::uint64_t recent_steps = 0;  // distinct steps of the window from recent_from_step on
  // What the trainer's layer ops computed in ("float16", "float32", "bfloat16"), from their range
  // texts, in the order first seen: whether FP16 underflow is a loss now or a warning.
  std::vector<std::string> compute_dtypes;

  bool has_loss = false;
  double loss_first = 0.0;
  std::int64_t loss_first_step = -1;
  double loss_last = 0.0;
  std::int64_t loss_last_step = -1;

  std::uint64_t loss_scale_samples = 0;
  std::vector<LossScaleChange> loss_scale_changes;  // the first value, then each change
  double loss_scale_min = 0.0;
  double loss_scale_max = 0.0;
  double loss_scale_final = 0.0;

  std::uint64_t counted_steps = 0;  // steps with a skipped_step counter
  std::uint64_t skipped_steps = 0;
  std::vector<StepRun> skipped;      // which, as runs of consecutive steps

  // The power-of-two loss scale at which the largest recorded gradient of every tensor, scaled,
  // still fits FP16 (below 2^15, one binade of headroom under FP16's maximum 65504); 0 without
  // bins. An upper bound: activations' gradients, which are not recorded, may overflow sooner.
  double suggested_loss_scale = 0.0;

  std::vector<TensorNumerics> tensors;  // by underflow share over all steps, largest first
};

AmpNumerics measureAmpNumerics(const trace::Trace& trace);

// "3, 17-19, 240"; at most max_runs runs, then ", ... (N more)".
std::string formatStepRuns(const std::vector<StepRun>& runs, std::size_t max_runs = 12);
// "the last 94 steps", "the last step"; where only some steps have gradient counters, "the last 3
// of the 25 steps with histograms".
std::string recentStepsText(const AmpNumerics& numerics);
// "65536 at step 0, 32768 at step 12"; at most max_changes, then ", ... (N more changes)".
std::string formatLossScaleHistory(const std::vector<LossScaleChange>& changes, std::size_t max_changes = 8);

}  // namespace ampscope::analyzer
