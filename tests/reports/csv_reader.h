#pragma once
// An independent RFC 4180 reader for the tests: written from the RFC's grammar, not from
// CsvWriter, so that a quoting bug in the writer cannot be mirrored here and go unnoticed.
// Accepts LF or CRLF line ends; returns nullopt on malformed input (a stray quote, an unclosed
// quoted field).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope::test {

using CsvTable = std::vector<std::vector<std::string>>;

inline std::optional<CsvTable> parseCsv(std::string_view text) {
  CsvTable rows;
  std::vector<std::string> row;
  std::string field;
  std::size_t i = 0;
  bool field_started = false;  // distinguishes an empty last line from a row of one empty field
  const auto endField = [&] { row.push_back(std::move(field)); field.clear(); };
  const auto endRow = [&] { endField(); rows.push_back(std::move(row)); row.clear(); field_started = false; };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' && field.empty() && (row.empty() || text[i - 1] == ',')) {
      ++i;  // quoted field: runs to the next quote not followed by another quote
      while (true) {
        if (i >= text.size()) return std::nullopt;
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') { field.push_back('"'); i += 2; continue; }
          ++i;
          break;
        }
        field.push_back(text[i++]);
      }
      field_started = true;
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') return std::nullopt;
      continue;
    }
    if (c == '"') return std::nullopt;  // a quote inside an unquoted field
    if (c == ',') { endField(); field_started = true; ++i; continue; }
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    if (c == '\n' || c == '\r') { endRow(); ++i; continue; }
    field.push_back(c);
    field_started = true;
    ++i;
  }
  if (field_started || !row.empty()) endRow();
  return rows;
}

}  // namespace ampscope::test
