#pragma once
// The precision modes of the trainer and what each means for storage, compute and updates:
//   fp32         everything FP32
//   tf32         FP32 storage; matrix math on TF32 Tensor Cores (10-bit mantissa inputs)
//   amp-fp16     FP32 weights; autocast runs matmul/conv in FP16; dynamic loss scaling by default
//   amp-bf16     the same in BF16; BF16 has FP32's range, so no loss scaling by default
//   fp16-master  apex O2: the model's weights and activations in FP16, FP32 master weights that
//                the optimizer updates, normalisation kept in FP32; loss scaling
//   fp16-pure    FP16 weights updated in FP16, no master copy: small updates round away (the
//                failure the mixed-precision papers warn about), kept for comparison

#include <optional>
#include <string>
#include <string_view>

#include "trainer/amp/loss_scaler.h"
#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

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

}  // namespace ampscope::trainer
