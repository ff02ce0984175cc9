#pragma once
// "Layers by pass" in every view (text, Markdown, HTML): the passes of the heaviest layers, in
// model order. The rows and their order are the analysis's layer table; this only picks which
// layers a view has room for and says so.

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::reports {

struct LayerPassView {
  std::vector<const analyzer::LayerRow*> rows;  // model order
  std::string scope;  // "each layer" or "each of the 10 heaviest layers (of 42)"
};

// Empty rows when the trace names no layers (its layer table holds operators).
LayerPassView layerPassView(const analyzer::TraceSummary& summary, std::size_t top);

}  // namespace ampscope::reports
