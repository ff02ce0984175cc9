#pragma once
// The rows behind layers.csv and kernels.csv, built once from the summary so that the CSVs, the
// JSON document, the Markdown and the HTML all show the same numbers.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/trace_summary.h"

namespace ampscope::reports {

// One layer (or, in traces without layer names, one operator). Text fields the trace does not
// tell are empty rather than guessed; see docs/reports.md.
struct LayerRow {
  std::string layer;       // empty for operator rows
  std::string op;          // eligible ops seen in the layer ("a; b"), or the operator itself
  std::string phase;       // the phase most of its GPU time ran in
  std::uint64_t calls = 0; // operator ranges that launched GPU work
  std::int64_t gpu_time_ns = 0;
  std::int64_t tensor_core_time_ns = 0;
  std::string eligible;    // "yes", "no", or "" when not known
  std::string precision;   // precision of most of its kernel time among its top kernels
  std::string shapes;      // recorded input shapes of its eligible ops ("; " between calls)
  std::string violations;  // "N=33278->33280 (x8)"; "; " between shapes
};

// A kernel name with its calls and time summed over every operator it appears under.
struct KernelRow {
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t total_ns = 0;
  analyzer::TensorCoreVerdict verdict;
};

// Layers when the trace names them, else operators, largest GPU time first.
std::vector<LayerRow> layerRows(const analyzer::TraceSummary& summary);
// The kernels listed under summary.top_operators, merged by name, largest total first.
std::vector<KernelRow> kernelRows(const analyzer::TraceSummary& summary);
// "M=33278->33280, K=1023->1024 (x8)"; empty when nothing is misaligned.
std::string violationText(const analyzer::ShapeCheck& check);

}  // namespace ampscope::reports
