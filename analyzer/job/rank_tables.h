#pragma once
// One rank's kernel, layer and op tables as its reports write them (kernels.csv, layers.csv,
// ops.csv): the values of each row, typed, copied from the summary's tables, which computed them.
// One row per kernel name, per layer (or top-level operator) and pass, per op call shape:
// aggregates of a size set by the model, never by the trace's length, so that a job of many ranks
// can keep every rank's tables (rank_result.h). Views format them; the single run's CSVs go through
// the same rows, so a job's kernels.csv row of a rank is that rank's own kernels.csv row.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/row_performance.h"
#include "analyzer/tables/layer_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// A number that is not finite is no figure: unknown (JSON, which carries a rank's findings and
// tables to merge, cannot hold it either).
std::optional<double> finiteFigure(const std::optional<double>& value);

struct TraceSummary;

// A kernels.csv row.
struct KernelLine {
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
  TensorCoreUse tensor_core = TensorCoreUse::kUnknown;  // kHost: a host op of a CPU run
  MathPrecision precision = MathPrecision::kUnknown;
  std::string rule;  // the rule (or evidence path) that decided; "" when none
  Confidence confidence = Confidence::kLow;
  int alignment = 0;  // operand alignment in elements the name states; 0: none
  RowPerformance performance;
  // The tensor pipe's measured busy share over measured_tensor_ns (KernelRow's); nullopt: not measured.
  std::optional<double> measured_tensor_active;
  std::int64_t measured_tensor_ns = 0;

  bool operator==(const KernelLine&) const = default;
};

// Dimensions of one op call shape off the multiple its precision wants.
struct ShapeViolation {
  std::vector<DimensionFinding> misaligned;
  int required_multiple = 8;

  bool operator==(const ShapeViolation&) const = default;
};

// A layers.csv row: a layer (or, in a trace without layer names, a top-level operator) and pass.
struct LayerLine {
  std::string layer;  // or the operator (RankTables::layers_are_operators)
  trace::Phase pass = trace::Phase::kUnknown;
  std::vector<std::string> ops;  // the ops it ran, heaviest first
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
  std::int64_t tensor_core_time_ns = 0;
  bool eligible = false;
  MathPrecision precision = MathPrecision::kUnknown;
  std::vector<std::string> shapes;         // eligible call shapes, heaviest first
  std::vector<ShapeViolation> violations;  // heaviest first
  LayerState state = LayerState::kFine;
  RowPerformance performance;
  std::optional<double> what_if_fp32_ns;
  std::optional<double> what_if_amp_ns;
  double what_if_padding_cost_ns = 0;
  // The tensor pipe's measured busy share over measured_tensor_ns (LayerRow's); nullopt: not measured.
  std::optional<double> measured_tensor_active;
  std::int64_t measured_tensor_ns = 0;

  bool operator==(const LayerLine&) const = default;
};

struct GemmLine {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;

  bool operator==(const GemmLine&) const = default;
};

// An ops.csv row: one op call shape of the per-op model (OpRow), its work per call.
struct OpLine {
  std::string op;
  std::string shapes;
  std::string arguments;
  std::string layer;
  trace::Phase pass = trace::Phase::kUnknown;
  OpClass op_class = OpClass::kMemory;
  std::uint64_t calls = 0;
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;
  MathPrecision precision = MathPrecision::kUnknown;
  std::optional<double> flops_per_call;
  std::optional<double> bytes_per_call;
  WorkBasis work_basis = WorkBasis::kUnknown;
  std::string work_note;
  std::optional<GemmLine> gemm;
  std::optional<double> achieved_tflops;
  std::optional<double> achieved_gbs;
  double peak_tflops = 0;  // 0 unknown
  std::optional<double> intensity;
  RooflineBound bound = RooflineBound::kUnknown;
  std::string rate_note;
  AmpChange amp = AmpChange::kNotProjected;
  std::optional<std::int64_t> predicted_amp_ns;
  double amp_speedup = 1.0;
  double tf32_speedup = 1.0;
  std::string amp_note;

  bool operator==(const OpLine&) const = default;
};

struct RankTables {
  bool recorded_on_cpu = false;       // host ops: Tensor Core time does not apply
  bool layers_are_operators = false;  // LayerTable::groups_operators
  std::vector<KernelLine> kernels;    // heaviest first
  std::vector<LayerLine> layers;      // model order
  std::vector<OpLine> ops;            // heaviest first

  bool operator==(const RankTables&) const = default;
};

std::vector<KernelLine> kernelLines(const TraceSummary& summary);
std::vector<LayerLine> layerLines(const TraceSummary& summary);
std::vector<OpLine> opLines(const TraceSummary& summary);
RankTables rankTablesOf(const TraceSummary& summary);

}  // namespace ampscope::analyzer
