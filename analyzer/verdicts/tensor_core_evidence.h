#pragma once
// Tensor Core verdicts for kernels no row of the rule file can place. A name the rules leave
// "unknown" (a matrix kernel of a family they do not know) gets, in this order:
//  (a) name and device: the name or its template arguments carry a low-precision element type
//      (half, __nv_bfloat16, float_e4m3_t, int8_t, ...) and the GPU's Tensor Cores run that
//      precision: likely Tensor Core, medium confidence. With an unknown device nothing is claimed;
//  (b) physics: the ops that ran it did their FLOPs faster than any CUDA core of the device can:
//      Tensor Core, high confidence, whatever the name says;
//  (c) otherwise it stays unknown, low confidence, and its time is reported as unknown time.
// Why and the figures used: docs/tensor_core_rules.md, "Evidence beyond the rows".

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analyzer/core/device_table.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {


// The GPU the verdicts are for, as far as the trace (or --gpu) says.
struct VerdictDevice {
  std::optional<GpuArchitecture> architecture;  // nullopt: unknown
  std::string name;  // "H100 SXM" or the trace's own device name; "" when unknown
  bool at_least = false;  // the GPU is at least this architecture (guessed from kernel names)
  bool amd = false;       // an AMD GPU (gpu_vendor.h): no verdict can be given
};

// Volta 7.0, Turing 7.5, Ampere 8.0-8.7, Ada 8.9, Hopper 9.x, Blackwell 10.x-12.x; nullopt before
// Volta (no Tensor Cores) and for capabilities not known yet.
std::optional<GpuArchitecture> architectureForComputeCapability(int major, int minor);

// The device's architecture from the chosen device-table row's compute capability, else from the
// trace's first GPU device's compute capability; unknown when neither says.
VerdictDevice verdictDevice(const trace::Trace& trace, const DeviceChoice& choice);

// The oldest architecture whose Tensor Cores run a precision (FP16 Volta, INT8 Turing, BF16/TF32/
// FP64 Ampere, FP8 Ada, FP4 Blackwell); nullopt for CUDA-core and unknown precisions.
std::optional<GpuArchitecture> oldestTensorCoreArchitecture(MathPrecision precision);

// The lowest element precision a kernel name (or its template arguments) names, kUnknown for none.
MathPrecision lowPrecisionInName(std::string_view name);

// Path (a) on a verdict from the rules: an unknown verdict becomes likely Tensor Core where the
// name and the device allow; otherwise it stays unknown with the reason in `evidence`. Verdicts
// the rules decided are returned as they are.
TensorCoreVerdict withNameEvidence(TensorCoreVerdict verdict, std::string_view name, const VerdictDevice& device);

// Path (b)'s bounds. No CUDA-core instruction does more than 4 operations per FP32 FMA slot (dp4a
// INT8 4x; HFMA2 FP16 2x, GA100's FP16 4x), so 4 x the FP32 rate bounds every precision the
// CUDA cores run; the Tensor Core peak is the highest Tensor Core column of the row.
double cudaCorePeakTflops(const DeviceSpec& device);
double tensorCorePeakTflops(const DeviceSpec& device);

// Everything a verdict may rest on beyond the kernel's name.
struct TensorCoreEvidence {
  VerdictDevice device;
  // Path (b): per kernel name, the Tensor Core verdict the rate of the ops that ran it proves.
  std::unordered_map<trace::StringId, TensorCoreVerdict> by_rate;
  // Per kernel name, the verdict the tensor pipe's hardware counters measured (analyzer/counters/,
  // confidence kMeasured): it outranks the rate and the name.
  std::unordered_map<trace::StringId, TensorCoreVerdict> by_measurement;
};

}  // namespace ampscope::analyzer
