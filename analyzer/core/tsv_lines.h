#pragma once
// Reading the analyzer's tab-separated data files (rules/tensor_core_rules.tsv,
// rules/devices.tsv) line by line, keeping where each field starts so that every parse error can
// point at its line and column.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace ampscope::analyzer {

// The lines of a text, without their "\n" or "\r\n" (files edited on Windows), numbered from 1.
class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  // The next line; nullopt after the last.
  std::optional<std::string_view> next();
  // The number of the line next() returned last; 0 before the first.
  int number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t start_ = 0;
  int number_ = 0;
};

// A line of spaces and tabs only, or one starting with '#'.
bool isBlankOrComment(std::string_view line);

struct TsvFields {
  std::vector<std::string_view> fields;
  std::vector<std::size_t> columns;  // 1-based column of each field in its line
};

// The fields between tabs; a line without a tab is one field.
TsvFields splitTsvFields(std::string_view line);

}  // namespace ampscope::analyzer
