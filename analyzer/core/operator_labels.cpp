#include "analyzer/core/operator_labels.h"

#include <fmt/format.h>

namespace ampscope::analyzer {

std::string_view opName(const trace::Trace& trace, const trace::Range& range) {
  return trace.str(opNameId(range));
}

std::string operatorLabel(const trace::Trace& trace, const trace::Range& range) {
  if (range.text_form != trace::RangeTextForm::kTrainerLayerOp) return std::string(opName(trace, range));
  return fmt::format("{} {} {}", trace.str(range.layer), trace.str(range.op), trace::phaseName(range.phase));
}

}  // namespace ampscope::analyzer
