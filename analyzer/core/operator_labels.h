#pragma once
// The names operator ranges go by in the analysis's tables, built from the fields the range
// normaliser filled (import/range_normaliser.h), never from the raw text.

#include <string>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// The normalised operator ("aten::mm" for "aten::mm, op_id = 318133"); the name for ranges that
// are no operator (a step marker, a user's annotation).
std::string_view opName(const trace::Trace& trace, const trace::Range& range);
// The same as an interned id: what code that keys by operator compares (ids of equal text are equal).
inline trace::StringId opNameId(const trace::Range& range) {
  return range.op != trace::StringTable::kEmpty ? range.op : range.name;
}

// The operator table's row: "fc1 linear forward" for a trainer layer op (layer, op and pass: its
// text also carries shapes, which would make every call shape its own operator), else opName.
std::string operatorLabel(const trace::Trace& trace, const trace::Range& range);

}  // namespace ampscope::analyzer
