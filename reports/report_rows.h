#pragma once
// The analysis's layer table as text cells, formatted once so that layers.csv, the JSON document,
// the Markdown and the HTML all show the same words. Formatting only: the rows, their numbers and
// their order are the analyzer's (analyzer/layer_table.h).

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/trace_summary.h"

namespace ampscope::reports {

// One layer and pass (or, in traces without layer names, one top-level operator and pass).
struct LayerCells {
  const analyzer::LayerRow* row = nullptr;
  std::string layer;       // empty for operator rows
  std::string op;          // the ops it ran ("a; b"), or the operator itself
  std::string phase;       // "forward", "backward", ...
  std::string eligible;    // "yes" or "no"
  std::string precision;   // of most of its matrix-kernel time; "" when none says
  std::string shapes;      // recorded input shapes of its eligible ops ("; " between calls)
  std::string violations;  // "N=33278->33280 (x8)"; "; " between shapes
};

// Every row of summary.layer_table, in its (model) order.
std::vector<LayerCells> layerCells(const analyzer::TraceSummary& summary);
// "M=33278->33280, K=1023->1024 (x8)"; empty when nothing is misaligned.
std::string violationText(const analyzer::ShapeCheck& check);

}  // namespace ampscope::reports
