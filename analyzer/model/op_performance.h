#pragma once
// The per-op performance model of one run: every op call shape that ran GPU work (host work on a
// CPU run), with the work it does (op_work.h), the rate it achieved against the device's peak in
// the precision its kernels ran, its roofline bound, and what it should take under AMP (FP16/BF16
// Tensor Cores for eligible math, half the bytes for memory-bound work that autocast moves to
// half precision, unchanged for collectives and for ops autocast keeps in FP32). A rate above
// the device's peak means an input is wrong: it is reported unknown, never as a number.
// Model and sources: docs/performance_model.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/device_table.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/model/op_time_model.h"
#include "analyzer/model/op_work.h"
#include "analyzer/verdicts/gemm_kernel_family.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

class KernelVerdicts;
class LayerAttribution;

// What an op's kernels do, for the projection.
enum class OpClass : std::uint8_t {
  kMatrix,         // Tensor-Core-eligible math: GEMMs, convolutions, attention
  kMemory,         // element-wise, normalisation, reductions, copies in kernels
  kCommunication,  // collectives (NCCL): master gradients stay FP32 under AMP
};
const char* opClassName(OpClass op_class);  // "matrix", "memory", "communication"

// What AMP does to an op, and so how its predicted time was found.
enum class AmpChange : std::uint8_t {
  kAlreadyHalf,      // its kernels already run in FP16/BF16 (or lower): unchanged
  kTensorCores,      // eligible math moves to FP16/BF16 Tensor Cores: the shape-aware model
  kTensorCoresUnknownWork,  // ... but its work is unknown: the midpoint of the small-GEMM and peak ratios
  kHalvedBytes,      // memory-bound work whose tensors autocast makes half precision
  kKeptFp32,         // autocast keeps it in FP32 (softmax, norms, losses, reductions) or it is the
                     // optimizer's update of FP32 master weights
  kCommunication,    // a collective: FP32 gradient reductions stay FP32
  kNotProjected,     // no device to project on (or a CPU run: see the what-if projection)
};
const char* ampChangeName(AmpChange change);

struct OpRow {
  std::string op;         // the normalised op that carried the work ("aten::cudnn_convolution")
  std::string shapes;     // its recorded input shapes, "" when not recorded
  std::string strides;    // its inputs' recorded strides (Kineto "Input Strides"), "" when not recorded
  std::string arguments;  // its recorded arguments (Kineto "Concrete Inputs" form), "" when none
  std::string layer;      // where the trace names one
  trace::Phase pass = trace::Phase::kUnknown;
  OpClass op_class = OpClass::kMemory;
  std::uint64_t calls = 0;
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;              // its kernels' time over the whole trace
  std::int64_t first_start_ns = 0;       // its first call: model order
  std::int64_t tensor_core_time_ns = 0;
  MathPrecision precision = MathPrecision::kUnknown;  // of most of its kernel time
  // The GEMM kernel family of most of its matrix kernels' time among those a name places (split-K
  // reduce and epilogue kernels place none): whether its FP32 path is one that falls short.
  GemmKernelFamily kernel_family = GemmKernelFamily::kUnknown;
  std::string dtypes_text;  // its recorded dtypes, "" when not recorded
  OpWork work;                            // per call

  // Measured against the device's peaks (unknown: nullopt, with rate_note saying why).
  std::optional<double> achieved_tflops;
  std::optional<double> achieved_gbs;
  std::optional<double> intensity;        // FLOPs per byte
  double peak_tflops = 0;                 // in the precision it ran; 0 unknown
  RooflineBound bound = RooflineBound::kUnknown;
  std::string rate_note;
  // The recorded work would put the rate above the device's peak: its FLOPs are not the work the
  // kernels did (a wrong shape or argument, or a Winograd/FFT algorithm), and no sum counts them.
  bool work_above_peak = false;

  // Under AMP on the recorded device.
  AmpChange amp = AmpChange::kNotProjected;
  std::optional<std::int64_t> predicted_amp_ns;  // all calls; nullopt when not projected
  double amp_speedup = 1.0;               // time_ns / predicted_amp_ns
  std::string amp_note;                   // what the prediction rests on
  // FP32 CUDA-core matrix work moved to TF32 Tensor Cores (allow_tf32) instead: the same model.
  double tf32_speedup = 1.0;

  std::int64_t timePerCall() const { return calls > 0 ? time_ns / static_cast<std::int64_t>(calls) : time_ns; }
};

struct OpPerformance {
  DeviceChoice device;          // the device the rates and the projection are for
  std::vector<OpRow> rows;      // every op call shape, heaviest first (each kernel's: KernelOwner::op_row)
  // Per steady step (the trace's window when it has no steps): FLOPs of the ops whose work is
  // known, and model FLOP utilisation against the device's dense FP16/BF16 Tensor Core peak
  // (model_flops.h, once the per-kernel table exists).
  double flops_per_step = 0;
  bool per_step = true;          // false: over the trace's window of GPU work (no steps found)
  std::int64_t window_ns = 0;    // the steady mean step, or that window
  std::optional<double> model_flop_utilisation;
  MathPrecision utilisation_precision = MathPrecision::kUnknown;  // the peak MFU is measured against
  double matrix_time_with_known_flops = 0;  // share of matrix-op kernel time whose FLOPs are known
  std::string note;             // why rates or projections are missing, when they are
};

// Per kernel of the trace, what the model's rows were built from: the row it adds to, and the op
// whose work it did (kNone: no op launched it): the innermost eligible op with shapes (else
// without) around a matrix kernel, else the op range that launched it.
struct KernelOpRows {
  std::vector<std::int32_t> row;      // into OpPerformance::rows
  std::vector<trace::Index> work_op;
};

// `device`: chosen by chooseRecordedDevice (may be unknown: rates and projections are then absent,
// and the note says how to name the device). The model runs before the per-kernel table
// (kernel_attribution.h), which points at its rows: it keeps its own pass over the kernels, with
// `verdicts` as they stand before the proof by rate (rate_proof.h) and the origins of
// `attribution`, and fills `kernel_rows` for the proof and the table.
OpPerformance measureOpPerformance(const trace::Trace& trace, const DeviceChoice& device, bool recorded_on_cpu,
                                   KernelVerdicts& verdicts, LayerAttribution& attribution, KernelOpRows& kernel_rows);

}  // namespace ampscope::analyzer
