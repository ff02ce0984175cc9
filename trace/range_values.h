#pragma once
// What an operator range's recorded argument values and dtypes say (Range::arguments and
// Range::dtypes, JSON arrays of strings), read from their text once, at import, by the range
// normaliser (analyzer/normalise/range_values_reader.h). A run records millions of calls with a
// few thousand distinct argument and dtype lists, so the values are held once per interned
// string, beside the ranges (Trace::range_values), not in every Range.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/string_table.h"

namespace ampscope::trace {

// One argument value of Range::arguments (Kineto's "Concrete Inputs" form: one string per schema
// argument), with what its text reads as.
struct ArgumentValue {
  std::string text;  // as recorded: "[2, 2]", "True", "same", "" (a tensor or an absent optional)
  // Its integers: "[2, 2]" -> {2, 2}, "2" -> {2}, "[]" -> {}; nullopt where it is not integers.
  std::optional<std::vector<std::int64_t>> integers;
  bool list = false;         // written as a list: "[...]"
  std::optional<bool> flag;  // "True", "true", "1" / "False", "false", "0"; nullopt: neither
  // A list of True and False only ("[True, True, False]": a convolution backward's output_mask);
  // nullopt for anything else, an integer list of ones and zeros included.
  std::optional<std::vector<bool>> flags;

  // One integer written as one ("2", not "[2]"); nullopt otherwise.
  std::optional<std::int64_t> integer() const {
    if (!integers || integers->size() != 1 || list) return std::nullopt;
    return integers->front();
  }
  // The text without the spaces around it.
  std::string_view word() const;

  bool operator==(const ArgumentValue&) const = default;
};

// Range::arguments, read: one value per schema argument, in order.
struct RangeArguments {
  std::vector<ArgumentValue> values;

  // The value at `position`; an empty value (no integers, no flag) where the call recorded none.
  const ArgumentValue& at(int position) const;

  bool operator==(const RangeArguments&) const = default;
};

// Range::dtypes, read: one entry per recorded input.
struct RangeDtypes {
  std::vector<std::string> names;          // as recorded: "float", "c10::Half", "Scalar", ""
  std::vector<std::uint8_t> element_bytes;  // per input; 0 where the name is no tensor dtype known

  // Bytes per element of input i; 0 where unknown or not recorded.
  int elementBytes(std::size_t input) const { return input < element_bytes.size() ? element_bytes[input] : 0; }

  bool operator==(const RangeDtypes&) const = default;
};

// The read values of every distinct Range::arguments and Range::dtypes string of a trace, by
// string id. A string nobody read (not recorded, or a trace the normaliser has not seen) reads
// as empty: no arguments, no dtypes.
class RangeValues {
 public:
  const RangeArguments& arguments(StringId arguments) const;
  const RangeDtypes& dtypes(StringId dtypes) const;

  void setArguments(StringId arguments, RangeArguments values);
  void setDtypes(StringId dtypes, RangeDtypes values);

  // Bytes held (an estimate for memory budgets).
  std::size_t memoryBytes() const;

 private:
  std::unordered_map<StringId, RangeArguments> arguments_;
  std::unordered_map<StringId, RangeDtypes> dtypes_;
};

}  // namespace ampscope::trace
