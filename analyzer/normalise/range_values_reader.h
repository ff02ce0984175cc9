#pragma once
// Reads the text of an operator's recorded argument values and dtypes (Range::arguments,
// Range::dtypes: JSON arrays of strings, in the form of Kineto's "Concrete Inputs" and "Input
// type", which the PyProf and trainer parsers write too) into trace::RangeArguments and
// trace::RangeDtypes. The range normaliser runs it once per distinct string at import
// (Trace::range_values); the analysis reads those values and never this text.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/range_values.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// A JSON array of strings -> its elements; elements that are not strings are kept as their text.
// Anything else -> empty.
std::vector<std::string> parseTextArray(std::string_view json);

// Bytes per element of a recorded dtype name ("float" 4, "c10::Half" 2, "c10::BFloat16" 2,
// "float16" 2, "double" 8, "long int" 8, "bool" 1, ...); 0 when unknown.
int dtypeBytes(std::string_view dtype);

// `["","","","[2, 2]","[3, 3]","[1, 1]","1"]` -> seven values, the fourth the integers {2, 2}.
trace::RangeArguments readRangeArguments(std::string_view json);

// `["float","c10::Half","Scalar"]` -> the names, with element sizes 4, 2 and 0.
trace::RangeDtypes readRangeDtypes(std::string_view json);

// Reads ranges' arguments and dtypes into trace.range_values, each distinct string once. The range
// normaliser hands it each range as it normalises it, so that the ranges (millions) are walked
// once; each costs two lookups in a flat vector by string id.
class RangeValuesReader {
 public:
  explicit RangeValuesReader(trace::Trace& trace) : trace_(trace) {}

  void read(const trace::Range& range) {
    // Most ranges (Python frames, annotations, steps) record neither.
    if (range.arguments != trace::StringTable::kEmpty || range.dtypes != trace::StringTable::kEmpty) {
      readRecorded(range);
    }
  }

 private:
  static constexpr std::uint8_t kArgumentsRead = 1;
  static constexpr std::uint8_t kDtypesRead = 2;

  void readRecorded(const trace::Range& range);
  bool firstTime(trace::StringId id, std::uint8_t bit);

  trace::Trace& trace_;
  std::vector<std::uint8_t> read_;  // by string id: kArgumentsRead | kDtypesRead
};

}  // namespace ampscope::analyzer::import
