#pragma once
// Mixed precision as the trainer applies it, in one place: what each precision mode stores and
// computes in, which precision autocast gives each op, and how the loss is scaled. The engine
// reads a mode's plan once at the start of a run; the layers ask the autocast policy per op; the
// loss-scaling rules themselves run with the step's kernels (trainer/numerics/step_state.h).

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "trainer/numerics/dtype.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer {

// The precision modes of the trainer and what each means for storage, compute and updates:
//   fp32         everything FP32
//   tf32         FP32 storage; matrix math on TF32 Tensor Cores (10-bit mantissa inputs)
//   amp-fp16     FP32 weights; autocast runs matmul/conv in FP16; dynamic loss scaling by default
//   amp-bf16     the same in BF16; BF16 has FP32's range, so no loss scaling by default
//   fp16-master  apex O2: the model's weights and activations in FP16, FP32 master weights that
//                the optimizer updates, normalisation kept in FP32; loss scaling
//   fp16-pure    FP16 weights updated in FP16, no master copy: small updates round away (the
//                failure the mixed-precision papers warn about), kept for comparison
enum class PrecisionMode { kFp32, kTf32, kAmpFp16, kAmpBf16, kFp16Master, kFp16Pure };

std::optional<PrecisionMode> parsePrecisionMode(std::string_view text);
const char* precisionModeName(PrecisionMode mode);
inline constexpr const char* kPrecisionModeNames = "fp32, tf32, amp-fp16, amp-bf16, fp16-master, fp16-pure";

struct PrecisionPlan {
  DType autocast = DType::kFp32;     // autocast's low precision; kFp32 when autocast is off
  DType parameters = DType::kFp32;   // what the forward reads its weights in
  DType input = DType::kFp32;        // the dtype batches enter the model in
  bool master_weights = false;       // a separate FP32 copy that the optimizer updates
  bool tf32 = false;
  LossScaling default_loss_scaling = LossScaling::kNone;
};

PrecisionPlan planFor(PrecisionMode mode);

// Which precision each op computes in under autocast, as torch.amp does it: matrix ops run in the
// low precision (they gain most and tolerate it); ops whose range or accumulation suffers
// (softmax, losses, exp/log/pow, sums and means, layer and group norm) run in FP32; the rest,
// batch norm among them (its statistics are FP32 whatever its input), follow their inputs. The lists can be extended by the user (--autocast-allow / --autocast-deny).
enum class CastList { kAllow, kDeny, kFollowInputs };

class AutocastPolicy {
 public:
  AutocastPolicy();

  void allow(std::string op);  // compute op in the low precision
  void deny(std::string op);   // compute op in FP32

  CastList listOf(std::string_view op) const;
  // The dtype op computes in, given autocast's low precision (kFp32: autocast off) and the
  // dtype of its inputs.
  DType computeType(std::string_view op, DType low_precision, DType input) const;

 private:
  std::set<std::string, std::less<>> allow_;
  std::set<std::string, std::less<>> deny_;
};

// Loss scaling with PyTorch GradScaler semantics: multiply the loss by the scale before backward;
// after it, unscale the gradients (before clipping and weight decay), and if any is Inf/NaN skip
// the update and back the scale off; after growth_interval clean steps in a row, grow it. The
// state and its rules live with the step's kernels (trainer/numerics/step_state.h); this is the
// run's choice of them.
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
