#pragma once
// NVTX ranges in the "ampscope" domain: steps, phases, layer ops and data work, readable by
// ampscope's collector and by Nsight Systems alike. Texts are registered with NVTX once and then
// pushed by handle, so a range costs an indirect call when no tool is attached (NVTX3 then
// points its entry points at no-ops) and no string work on the hot path. Built without the
// NVTX3 headers, every call is empty. The text format is in docs/trainer_ranges.md. Below the
// marker, the CPU backend's ops as ranges of their own domain (ScopedHostOp).

#include <string>
#include <string_view>

#include "trainer/numerics/dtype.h"

namespace ampscope::trainer {

// The trainer's own ranges are in domain "ampscope"; the CPU backend's ops in "ampscope.host",
// which the collector records as host activity rather than as annotations.
enum class RangeDomain { kTrainer, kHostOps };

class RangeMarker {
 public:
  // Registered text: push(handle) is the cheap path for texts that repeat every step.
  using Handle = const void*;
  static Handle registerText(const std::string& text, RangeDomain domain = RangeDomain::kTrainer);
  static void push(Handle text);
  static void push(const std::string& text);  // for texts used once (step numbers), domain "ampscope"
  static void pop(RangeDomain domain = RangeDomain::kTrainer);
  static bool compiledIn();
};

// Pushes on construction, pops on destruction.
class ScopedRange {
 public:
  explicit ScopedRange(RangeMarker::Handle text) { RangeMarker::push(text); }
  explicit ScopedRange(const std::string& text) { RangeMarker::push(text); }
  ~ScopedRange() { RangeMarker::pop(); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};

// The CPU backend's ops as NVTX ranges in domain "ampscope.host" ("cpu gemm float16", ...), so a
// CPU run's profile has the per-op activity a GPU run gets from CUPTI: the collector records each
// as a host "kernel" on the CPU device, attributed to the layer range around it. Names are
// registered once per op and dtype; without a tool attached a range costs NVTX's no-op calls.
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
