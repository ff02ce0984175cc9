#include "reports/csv_writer.h"

#include <fmt/format.h>

namespace ampscope::reports {

CsvWriter::CsvWriter(std::vector<std::string> header) : columns_(header.size()) {
  for (const std::string& name : header) add(name);
  // The header is a row like any other but not counted in rows().
  text_ = row_ + "\n";
  row_.clear();
  fields_in_row_ = 0;
}

std::string CsvWriter::quote(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out;
  out.reserve(field.size() + 2);
  out.push_back('"');
  for (const char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

CsvWriter& CsvWriter::add(std::string_view field) {
  if (fields_in_row_ > 0) row_.push_back(',');
  row_ += quote(field);
  ++fields_in_row_;
  return *this;
}

CsvWriter& CsvWriter::add(std::int64_t value) { return add(std::string_view(fmt::format("{}", value))); }
CsvWriter& CsvWriter::add(std::uint64_t value) { return add(std::string_view(fmt::format("{}", value))); }
CsvWriter& CsvWriter::add(double value) { return add(std::string_view(fmt::format("{:.4f}", value))); }
CsvWriter& CsvWriter::addBool(bool value) { return add(std::string_view(value ? "true" : "false")); }

bool CsvWriter::endRow() {
  const bool complete = fields_in_row_ == columns_;
  if (complete) {
    text_ += row_;
    text_.push_back('\n');
    ++rows_;
  }
  row_.clear();
  fields_in_row_ = 0;
  return complete;
}

}  // namespace ampscope::reports
