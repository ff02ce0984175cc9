#include "analyzer/core/tsv_lines.h"

namespace ampscope::analyzer {

std::optional<std::string_view> TextLines::next() {
  if (start_ >= text_.size()) return std::nullopt;
  std::size_t end = text_.find('\n', start_);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view line = text_.substr(start_, end - start_);
  start_ = end + 1;
  ++number_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool isBlankOrComment(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos || line.front() == '#';
}

TsvFields splitTsvFields(std::string_view line) {
  TsvFields out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    out.columns.push_back(start + 1);
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

}  // namespace ampscope::analyzer
