#pragma once
// How long an op's work should take on a device in a precision: the larger of its compute time at
// an efficiency its shape allows and its memory time at the device's bandwidth, plus a fixed cost
// per kernel (and never less than a kernel's floor). The shape's efficiency models what cuBLAS/CUTLASS kernels do with it: output tiles
// (tile quantisation), waves of tiles over the SMs (wave quantisation), split-K for short wide
// problems, the pipeline's fill and drain for short K, and the slower kernels chosen for operands
// off the precision's alignment. Constants and sources: docs/performance_model.md.

#include <cstdint>
#include <optional>

#include "analyzer/core/device_table.h"
#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::analyzer {

enum class RooflineBound : std::uint8_t { kUnknown, kCompute, kMemory, kLatency };
const char* roofBoundName(RooflineBound bound);  // "unknown", "compute", "memory", "latency"

struct TimeEstimate {
  double ns = 0;            // predicted time of one call: max(compute, memory) + per-kernel cost
  double compute_ns = 0;    // at the shape's efficiency
  double memory_ns = 0;     // bytes at the achievable share of the device's bandwidth
  double efficiency = 0;    // of the precision's peak, for this shape (0 for memory-only work)
  double tile_waste = 0;    // share of the computed tiles' work that is padding (tile + wave quantisation)
  RooflineBound bound = RooflineBound::kUnknown;
};

// Fixed assumptions of the model, in one place (docs/performance_model.md says why each).
struct TimeModelConstants {
  double kernel_ramp_ns = 1000;         // a kernel's fill and drain on the GPU, added to its work
  double kernel_floor_ns = 2000;        // no kernel takes less (launch to completion on the GPU)
  double bandwidth_efficiency = 0.85;   // of the datasheet DRAM bandwidth a streaming kernel reaches
  double tensor_core_efficiency = 0.80; // of the Tensor Core peak a large aligned GEMM reaches
  double simt_efficiency = 0.90;        // of the FP32 peak a large SGEMM reaches
  // One step of a block's main loop over K (its k-tile's loads, then its math) takes at least
  // this long however little math the step holds: small GEMMs are bound by the steps, and SIMT
  // kernels take four times the steps of Tensor Core ones (k-tiles of 8 against 32). Measured on
  // an H100 (docs/performance_model.md).
  double k_step_ns = 194;
  std::int64_t simt_k_tile = 8;
  std::int64_t tensor_core_k_tile = 32;
};
const TimeModelConstants& timeModelConstants();

// A matrix op (GEMM, implicit-GEMM convolution, attention as its GEMMs) of `flops` and `bytes`
// (in this precision's element size) with GEMM dimensions `dims`, run in `precision` on `device`
// in `kernels` kernels. nullopt when the device has no unit for the precision.
std::optional<TimeEstimate> estimateMatrixTime(const DeviceSpec& device, MathPrecision precision,
                                               const GemmDims& dims, double flops, double bytes, int kernels);

// Work that streams `bytes` through memory (element-wise, normalisation, reductions, copies).
TimeEstimate estimateMemoryTime(const DeviceSpec& device, double bytes, int kernels);

// The roofline's bound for work of this arithmetic intensity (FLOPs per byte) in a precision:
// compute above the device's ridge point (peak / bandwidth), memory below.
RooflineBound roofBound(const DeviceSpec& device, MathPrecision precision, double flops_per_byte);

}  // namespace ampscope::analyzer
