#pragma once
// The CPU backend's ops as NVTX ranges in domain "ampscope.host" ("cpu gemm float16", ...), so a
// CPU run's profile has the per-op activity a GPU run gets from CUPTI: the collector records each
// as a host "kernel" on the CPU device, attributed to the layer range around it. Names are
// registered once per op and dtype; without a tool attached a range costs NVTX's no-op calls.

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

enum class HostOp {
  kGemm, kConvForward, kConvBackwardData, kConvBackwardFilter, kAddBias, kBiasGradient,
  kActivationForward, kActivationBackward, kBatchNormForward, kBatchNormBackward,
  kLayerNormForward, kLayerNormBackward, kPoolForward, kPoolBackward, kSoftmaxCrossEntropy,
  kCountCorrect, kUnscaleGradients, kClipGradients, kGradientHistograms, kSgdStep, kAdamWStep,
  kFinishStep, kCopy, kCopyAll, kFill, kScale, kUpload, kDownload,
  kCount  // not an op: the number of them
};

class ScopedHostOp {
 public:
  ScopedHostOp(HostOp op, DType dtype);
  ~ScopedHostOp();
  ScopedHostOp(const ScopedHostOp&) = delete;
  ScopedHostOp& operator=(const ScopedHostOp&) = delete;
};

}  // namespace ampscope::trainer
