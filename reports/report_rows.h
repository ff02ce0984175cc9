#pragma once
// The analysis's layer table as text cells, formatted once so that layers.csv, the JSON document,
// the Markdown and the HTML all show the same words. Formatting only: the rows, their numbers and
// their order are the analyzer's (analyzer/tables/layer_table.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/job/rank_tables.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

// One layer and pass (or, in traces without layer names, one top-level operator and pass).
struct LayerCells {
  const analyzer::LayerRow* row = nullptr;  // the summary's row (layerCells); nullptr from layerCellsOf
  std::string layer;       // empty for operator rows
  std::string op;          // the ops it ran ("a; b"), or the operator itself
  std::string phase;       // "forward", "backward", ...
  std::string eligible;    // "yes" or "no"
  std::string precision;   // of most of its matrix-kernel time; "unknown" when none says
  std::string shapes;      // recorded input shapes of its eligible ops ("; " between calls)
  std::string violations;  // "N=33278->33280 (x8)"; "; " between shapes
};

// Every row of summary.layer_table, in its (model) order.
std::vector<LayerCells> layerCells(const analyzer::TraceSummary& summary);
// The cells of one layers.csv row (analyzer/job/rank_tables.h); operators: the table's rows are
// top-level operators (the layer cell empty, the op cell the operator).
LayerCells layerCellsOf(const analyzer::LayerLine& line, bool operators);

// Numbers as the CSVs write them; "" when not known (an empty CSV field means not known, never 0;
// docs/reports.md, "Encoding").
std::string countCell(double value);                        // "1234567": FLOPs, bytes, ns; "" when <= 0
std::string countCell(const std::optional<double>& value);  // "" when nullopt (0 stays "0")
std::string countCell(const std::optional<std::int64_t>& value);
std::string rateCell(const std::optional<double>& value);   // "12.3456": TFLOP/s, GB/s, FLOP/byte
// "; 1.2 ms (3.4%) unknown" after a Tensor Core time; "" when no kernel time is unknown.
std::string unknownTimeText(const analyzer::TensorCoreTime& time);

// The per-op model's figures of a layer or kernel row (analyzer/model/row_performance.h) as the cells
// of layers.csv and kernels.csv: flops, bytes, achieved_tflops, peak_tflops, bound, predicted_amp_ns.
std::vector<std::string> performanceCells(const analyzer::RowPerformance& performance);
inline const std::vector<std::string> kPerformanceColumns = {"flops",       "bytes", "achieved_tflops",
                                                             "peak_tflops", "bound", "predicted_amp_ns"};
// "M=33278->33280, K=1023->1024 (x8)"; empty when nothing is misaligned.
std::string violationText(const analyzer::ShapeCheck& check);
std::string violationText(const analyzer::ShapeViolation& violation);
// "M=33278->33280, K=1023->1024"; empty for none.
std::string dimensionsText(const std::vector<analyzer::DimensionFinding>& findings);
// The GEMM dimensions that are a matrix's row length, and so must be multiples: {"N", "K"} where
// the recorded strides tell them; nullopt where they do not (any of the three then counts), and
// for a convolution.
std::optional<std::vector<std::string>> leadingDimensionNames(const analyzer::GemmDims& dims);
// "; leading N, K" where the strides tell them; "" otherwise.
std::string leadingDimensionsText(const analyzer::GemmDims& dims);

// What every view says when the trace's GPU has no row in the device table.
inline constexpr const char* kDeviceUnknownHint = "name it with --gpu NAME (e.g. --gpu H100-SXM)";
inline constexpr const char* kDeviceUnknownText = "device unknown — name it with --gpu NAME (e.g. --gpu H100-SXM)";

// The device the rates and projections use, in words: the row and why (summary.device), the
// unknown line, or on a CPU run the what-if device.
struct DeviceWords {
  std::string row;  // "V100 SXM2", "unknown", "CPU run (no GPU)"
  std::string why;  // summary.device.reason, kDeviceUnknownText, or the what-if device and its reason
  bool known = false;
};
DeviceWords deviceWords(const analyzer::TraceSummary& summary);

// The span the Amdahl parts cover: "per step", or "over the trace's 12.3 ms window (no steps
// found)" for a trace without steps (amdahl.per_step false).
std::string amdahlScope(const analyzer::AmdahlProjection& amdahl);
// The same for the per-op model's totals (FLOPs per step, MFU), and the peak MFU is measured
// against: "the BF16 Tensor Core peak".
std::string performanceScope(const analyzer::OpPerformance& ops);
std::string utilisationPeak(const analyzer::OpPerformance& ops);

// The layer table's rows that carry what-if estimates, the heaviest `top` by their estimated FP32
// time, in model order, and which they are ("each layer and pass with known work" or "the 10
// heaviest of 24 ...").
struct WhatIfRows {
  std::vector<const analyzer::LayerRow*> rows;
  std::vector<const analyzer::LayerRow*> misaligned;  // every row with dimensions off the multiple of 8, model order
  std::string scope;
};
WhatIfRows whatIfRows(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::reports
