#pragma once
// The run's layers, one row per layer and pass (forward, backward, ...), in model order: calls,
// GPU time (host time on a CPU run), Tensor Core time, whether the layer's ops could use Tensor
// Cores, the precision its matrix kernels ran in, its recorded GEMM shapes and the shape checks
// that found dimensions off the precision's multiple. Every layer, never a top N: views cut.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/op_time_model.h"
#include "analyzer/model/row_performance.h"
#include "analyzer/tables/shape_checks.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// How much a row needs attention, least first (kHost says nothing either way: a CPU run).
enum class LayerState { kFine, kMisaligned, kEligibleNotTensorCore, kHost };
const char* layerStateName(LayerState state);  // "fine", "misaligned", "eligible_not_tensor_core", "host"

struct LayerRow {
  std::string layer;              // or the top-level operator, when the trace names no layers
  trace::Phase pass = trace::Phase::kUnknown;
  std::vector<std::string> ops;   // the ops it ran, heaviest first
  std::uint64_t calls = 0;        // calls of the layer in this pass that ran kernels
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;       // its kernels' time (host ops' on a CPU run)
  std::int64_t tensor_core_time_ns = 0;
  bool eligible = false;          // some of its kernels ran under a Tensor-Core-eligible op
  std::int64_t eligible_tensor_core_ns = 0;  // eligible ops' matrix kernels on Tensor Cores
  std::int64_t eligible_cuda_core_ns = 0;    // ... and on CUDA cores (FP32 SIMT, unknown family)
  MathPrecision precision = MathPrecision::kUnknown;  // of most of its matrix-kernel time
  std::vector<std::string> shapes;            // eligible call shapes, heaviest first
  std::vector<std::size_t> misaligned_checks;  // into TraceSummary::shape_checks, heaviest first
  int violation_count = 0;        // misaligned dimensions over its call shapes
  LayerState state = LayerState::kFine;
  std::int64_t first_start_ns = 0;  // its first call: model order

  RowPerformance performance;  // the per-op model over its ops (layer_performance.h)
  // The tensor pipe's measured busy share over `measured_tensor_ns` of its kernels' time (hardware
  // counters: analyzer/counters/); nullopt where none of its kernels was measured.
  std::optional<double> measured_tensor_active;
  std::int64_t measured_tensor_ns = 0;
  // On the what-if device (what_if_device.h), per step: model estimates, never measurements.
  std::optional<double> what_if_fp32_ns;
  std::optional<double> what_if_amp_ns;
  double what_if_padding_cost_ns = 0;      // AMP time its dimensions off the multiple of 8 cost
  std::vector<DimensionFinding> what_if_misaligned;

  double tensorCoreShare() const;  // of time_ns; 0 without time
};

struct LayerTable {
  bool groups_operators = false;  // the trace names no layers: rows are top-level operators
  std::vector<LayerRow> rows;     // model order: layers as first run, each one's passes as run
};

// Each kernel adds to its origin's group and pass (KernelOrigin), with its verdict.
// shape_checks: every shape check of the trace (checkShapes), which rows index.
LayerTable buildLayerTable(const trace::Trace& trace, const KernelAttribution& kernels,
                           const std::vector<ShapeCheck>& shape_checks, bool recorded_on_cpu);

}  // namespace ampscope::analyzer
