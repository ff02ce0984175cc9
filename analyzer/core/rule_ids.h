#pragma once
// Every rule id the code names, in one place: the recommendations' stable ids (what users filter
// and diff on, docs/reports.md) and the Tensor Core rule rows the analysis itself reads. A rule
// file row's id is data; only the rows named here carry meaning for the code.

#include <string_view>

namespace ampscope::analyzer::rule_ids {

// Tensor Core rules (analyzer/rules/tensor_core_rules.tsv): a matrix kernel of a family the rules
// do not know. Its math may or may not run on Tensor Cores; the analysis counts it as matrix work.
inline constexpr std::string_view kUnknownMatrixKernel = "unknown-matrix";
// Verdicts for such kernels from evidence beyond the rows (tensor_core_evidence.h): a
// low-precision element type on a device whose Tensor Cores run it (a), or an achieved rate no
// CUDA core reaches (b). Reports print them where a row's id would be.
inline constexpr std::string_view kInferredLowPrecisionMatrix = "inferred-low-precision-matrix";
inline constexpr std::string_view kInferredFromRate = "inferred-rate-above-cuda-cores";
// Every kernel of a trace recorded on an AMD GPU (gpu_vendor.h): the rules describe NVIDIA's
// kernels, and nothing tells whether AMD's matrix cores ran it.
inline constexpr std::string_view kAmdGpuKernel = "amd-gpu";
// Verdicts the tensor pipe's hardware counters decided (analyzer/counters/): busy or idle as measured.
inline constexpr std::string_view kMeasuredTensorPipe = "measured-tensor-pipe";

// Recommendations (analyzer/advice/recommendations.h).
inline constexpr std::string_view kEnableAmp = "enable-amp";
inline constexpr std::string_view kEnableTf32 = "enable-tf32";
inline constexpr std::string_view kTf32ToHalfPrecision = "tf32-to-half-precision";
inline constexpr std::string_view kPadDimensions = "pad-dimensions";
inline constexpr std::string_view kFuseAttention = "fuse-attention";
inline constexpr std::string_view kHideInputPipeline = "hide-input-pipeline";
inline constexpr std::string_view kPinnedMemoryCopies = "pinned-memory-copies";
inline constexpr std::string_view kLaunchBound = "launch-bound";
inline constexpr std::string_view kHostBound = "host-bound";
inline constexpr std::string_view kSynchronousCalls = "synchronous-calls";
inline constexpr std::string_view kBatchTooSmall = "batch-too-small";
inline constexpr std::string_view kLossScaleOverflows = "loss-scale-overflows";
inline constexpr std::string_view kLossScaleAtFloor = "loss-scale-at-floor";
inline constexpr std::string_view kGradientUnderflow = "gradient-underflow";
inline constexpr std::string_view kOverlapCommunication = "overlap-communication";
inline constexpr std::string_view kReduceGradientsInBf16 = "reduce-gradients-in-bf16";
// AMP's projected peak lets a larger batch fit (analyzer/memory/): a memory finding, no time gain.
inline constexpr std::string_view kMemoryHeadroom = "memory-headroom";
// A kernel's name and its measured tensor pipe disagree (analyzer/counters/).
inline constexpr std::string_view kMeasuredVerdictDisagrees = "measured-verdict-disagrees";
// A job's recommendations (analyzer/job/job_analysis.h).
inline constexpr std::string_view kFixStraggler = "fix-straggler";
inline constexpr std::string_view kBalanceRanks = "balance-ranks";

}  // namespace ampscope::analyzer::rule_ids
