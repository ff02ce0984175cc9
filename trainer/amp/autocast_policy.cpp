#include "trainer/amp/autocast_policy.h"

namespace ampscope::trainer {

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return "float16";
    case DType::kBf16: return "bfloat16";
    case DType::kFp32: break;
  }
  return "float32";
}

AutocastPolicy::AutocastPolicy()
    : allow_{"matmul", "linear", "mm", "bmm", "addmm", "baddbmm", "conv1d", "conv2d", "conv3d",
             "conv_transpose2d"},
      deny_{"softmax", "log_softmax", "cross_entropy", "softmax_cross_entropy", "nll_loss", "mse_loss",
            "exp", "log", "pow", "sum", "mean", "norm", "layer_norm", "group_norm"} {}
// batch_norm is on neither list, as in torch.autocast: it runs in its input's type (cuDNN's batch
// norm takes FP16/BF16 activations with FP32 scale, bias and statistics), so a CNN's activations
// after a convolution stay half precision through norm, activation and pooling.

void AutocastPolicy::allow(std::string op) {
  deny_.erase(op);
  allow_.insert(std::move(op));
}

void AutocastPolicy::deny(std::string op) {
  allow_.erase(op);
  deny_.insert(std::move(op));
}

CastList AutocastPolicy::listOf(std::string_view op) const {
  if (allow_.find(op) != allow_.end()) return CastList::kAllow;
  if (deny_.find(op) != deny_.end()) return CastList::kDeny;
  return CastList::kFollowInputs;
}

DType AutocastPolicy::computeType(std::string_view op, DType low_precision, DType input) const {
  if (low_precision == DType::kFp32) return input;  // autocast off
  switch (listOf(op)) {
    case CastList::kAllow: return low_precision;
    case CastList::kDeny: return DType::kFp32;
    case CastList::kFollowInputs: break;
  }
  return input;
}

}  // namespace ampscope::trainer
