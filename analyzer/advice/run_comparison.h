#pragma once
// Two runs of one model side by side (FP32 against AMP, 0 against 4 data-loader workers): which
// change B made, read from the two analyses; the measured step speedup beside what run A's own
// analysis predicted for that change, with the error of the prediction; and every op call shape
// of A paired with B's, so that each op's predicted speedup is scored against the measured one.
// Runs without steps (an inference call, one forward pass) are compared by the GPU work of their
// whole traces instead (gpu_work_comparison.h). Model and output: docs/diff.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/advice/memory_comparison.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

// What B changed relative to A, as far as the two analyses tell.
enum class RunChange : std::uint8_t {
  kAmp,          // B's matrix ops run FP16/BF16 on Tensor Cores where A's ran FP32 or TF32
  kTf32,         // A's matrix ops ran FP32 on CUDA cores, B's run TF32 on Tensor Cores
  kPadding,      // B's matrix op shapes are A's rounded up to multiples of 8, in the same precision
  kDataLoading,  // the same kernels in the same precision; the exposed data loading changed
  kUnknown,      // none of these, or more than the model can score (another GPU)
};
const char* runChangeName(RunChange change);   // "amp", "tf32", "padding", "data_loading", "unknown"
const char* runChangeLabel(RunChange change);  // "AMP (FP16/BF16 on Tensor Cores)", ...

struct DetectedChange {
  RunChange kind = RunChange::kUnknown;
  std::string reason;  // the figures it was decided on
};

// How an op row of one run found its partner in the other.
enum class OpPairing : std::uint8_t {
  kNameAndShapes,  // the same op and recorded shapes (and layer and pass where both runs name layers)
  kPaddedShapes,   // the same op and pass; B's shapes are A's rounded up to multiples of 8
  kOnlyA,
  kOnlyB,
};
const char* opPairingName(OpPairing pairing);  // "name_and_shapes", "padded_shapes", "only_a", "only_b"

// What the measured speedup is of.
enum class MeasuredBasis : std::uint8_t {
  kSteps,    // both runs have steady steps: A's mean step over B's
  kGpuWork,  // a run has none: the GPU work of the whole traces, B's scaled to A's amount of work
};
const char* measuredBasisName(MeasuredBasis basis);   // "steps", "gpu_work"
const char* measuredBasisLabel(MeasuredBasis basis);  // "per steady step", "per trace's GPU work, no steps"

// One op (or layer) in both runs. Op rows of one run that share the pairing key (the same op and
// shapes in several passes or with several argument lists) are summed.
struct OperatorComparison {
  std::string name;
  std::string shapes;    // A's recorded shapes (B's where only B ran it); empty for layers
  std::string b_shapes;  // B's when they differ from A's (padding); else empty
  std::string layer;     // where both runs name layers
  trace::Phase pass = trace::Phase::kUnknown;  // of most of its time
  OpPairing pairing = OpPairing::kNameAndShapes;
  // GPU time of its kernels per step: its time over the trace divided by the run's iterations;
  // 0 on the GPU-work basis (a run has no steps to divide by).
  std::int64_t a_ns_per_step = 0;
  std::int64_t b_ns_per_step = 0;
  std::int64_t a_trace_ns = 0;  // GPU time of its kernels over the whole trace
  std::int64_t b_trace_ns = 0;
  std::uint64_t a_calls = 0;    // op calls over the whole trace; 0 for layers
  std::uint64_t b_calls = 0;
  // Measured, A's time over B's; 0 where either run has none. Per step on the steps basis; on the
  // GPU-work basis per call for ops, and for layers over the traces with B's time divided by
  // GpuWorkComparison::work_ratio.
  double speedup = 0.0;
  // A's per-op model for the detected change (AMP: amp_speedup; TF32: tf32_speedup; data loading
  // and padding: 1); nullopt where A has no such prediction or the change is unknown.
  std::optional<double> predicted_speedup;
};

struct Projection {
  std::string what;   // e.g. "hide the input pipeline"
  double speedup = 1.0;
};

struct OperatorPairingCounts {
  std::size_t by_name_and_shapes = 0;
  std::size_t by_padded_shapes = 0;
  std::size_t only_a = 0;
  std::size_t only_b = 0;
  double a_time_paired = 0.0;  // share of A's op time in rows paired with B's
};

// The GPU work of the two whole traces (computed for every pair; the measured speedup on the
// GPU-work basis). Figures from each TraceSummary: nothing here reads events.
struct GpuWorkComparison {
  // Each device's busy time (DeviceSummary::busy_ns: the union of its kernels' intervals over its
  // streams), summed over the run's devices.
  std::int64_t a_busy_ns = 0;
  std::int64_t b_busy_ns = 0;
  std::int64_t a_kernel_ns = 0;  // TraceSummary::gpu_kernel_time_ns: the sum of kernel durations
  std::int64_t b_kernel_ns = 0;
  std::uint64_t a_paired_calls = 0;  // calls of the op call shapes both runs ran
  std::uint64_t b_paired_calls = 0;
  // How much of A's work B's trace holds: B's calls of each paired op call shape over A's,
  // weighted by A's time in it (2: B ran every op twice as often, two inference calls to A's one).
  // 1 where both ran the same calls, or where no op pairs with calls in both (work_note says so).
  double work_ratio = 1.0;
  double min_call_ratio = 1.0;  // the spread of the paired ops' call ratios
  double max_call_ratio = 1.0;
  std::string work_note;        // how the amounts of work were matched, in words
  // A's time over B's divided by work_ratio; 0 where either is 0.
  double busy_speedup = 0.0;
  double kernel_speedup = 0.0;
};

struct RunComparison {
  DetectedChange change;
  // Steps where both runs have steady steps; else the GPU work of the whole traces.
  MeasuredBasis measured_basis = MeasuredBasis::kSteps;
  std::string basis_reason;    // "both runs have steady steps", "neither run has steps", ...
  std::int64_t a_step_ns = 0;  // steady mean step time; 0 without steps
  std::int64_t b_step_ns = 0;
  GpuWorkComparison gpu_work;
  // Steps: A's mean step over B's. GPU work: gpu_work.busy_speedup. 0 when it cannot be measured.
  double measured_speedup = 0.0;
  // What A's analysis predicted for the detected change, of the step or (GPU-work basis) of its
  // GPU work; nullopt when it predicted nothing.
  std::optional<double> predicted_speedup;
  std::string predicted_from;  // which of A's figures, or why there is none
  // ln(predicted / measured): 0 is a perfect prediction, +0.1 predicts 10.5% too fast, -0.1
  // 9.5% too slow; symmetric, so errors of runs average. nullopt when either side is missing.
  std::optional<double> prediction_error;
  std::vector<Projection> a_projections;  // everything run A's analysis predicted
  std::vector<OperatorComparison> operators;  // op call shapes, by A's GPU time, largest first
  OperatorPairingCounts pairing;
  std::vector<OperatorComparison> layers;     // per layer, where the traces name layers
  MemoryComparison memory;  // the peaks, and A's memory projection scored against B's
};

// Both summaries complete (summarizeTrace); nothing here reads trace events.
RunComparison compareRuns(const TraceSummary& a, const TraceSummary& b);

// predicted / measured - 1 from prediction_error: +0.05 is a prediction 5% above the measured
// speedup.
double predictionErrorFraction(double log_ratio);

}  // namespace ampscope::analyzer
