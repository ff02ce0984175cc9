#pragma once
// The Backend's ops as a fixed set: their names (a fault plan names one) and what each asks of the
// device, which is what train --json counts per step.

#include <optional>
#include <string_view>

namespace ampscope::trainer {

enum class BackendOp {
  kAllocate, kAllocateStepState, kUpload, kDownload, kFill, kCopy, kScale, kSynchronize, kGemm, kConvForward,
  kConvBackwardData, kConvBackwardFilter, kAddBias, kBiasGradient, kActivationForward, kActivationBackward,
  kBatchNormForward, kBatchNormBackward, kLayerNormForward, kLayerNormBackward, kPoolForward, kPoolBackward,
  kSoftmaxCrossEntropy, kCountCorrect, kReadStepLog, kCopyAll, kUnscaleGradients, kClipGradients,
  kGradientHistograms, kSgdStep, kAdamWStep, kFinishStep,
  kCount  // not an op: the number of them
};

enum class OpDemand {
  kNone,         // no device work (memory set aside)
  kLaunch,       // queued device work: one kernel, copy or library call
  kMultiTensor,  // queued device work over many tensors: launches planned by planMultiTensor
  kHostRead,     // the host waits for the device and reads what it computed
};

struct BackendOpInfo {
  std::string_view name;  // the method's name: "gemm", "sgdStep"
  OpDemand demand;
};

const BackendOpInfo& backendOpInfo(BackendOp op);
std::optional<BackendOp> parseBackendOp(std::string_view name);
// Every op's name, comma-separated, for messages.
std::string_view backendOpNames();

}  // namespace ampscope::trainer
