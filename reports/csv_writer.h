#pragma once
// RFC 4180 CSV text: a field is quoted when it holds a comma, a double quote, CR or LF, and
// quotes inside are doubled. Lines end in LF, not the RFC's CRLF: every CSV reader we target
// (Python's csv, pandas, spreadsheets) accepts LF, and LF keeps the files diff-friendly. The
// column order is fixed by the header the writer is made with, so scripts may index by position.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope::reports {

class CsvWriter {
 public:
  explicit CsvWriter(std::vector<std::string> header);

  // Starts a row; fields are appended with the add* calls. endRow() checks the field count.
  CsvWriter& add(std::string_view field);
  CsvWriter& add(std::int64_t value);
  CsvWriter& add(std::uint64_t value);
  CsvWriter& add(double value);  // fixed, 4 decimals: stable across platforms
  CsvWriter& addBool(bool value);  // "true" / "false"
  // Returns false (and drops the row) when the row has a different number of fields than the
  // header: a programming error that must not produce a misaligned file.
  bool endRow();

  std::size_t rows() const { return rows_; }
  const std::string& text() const { return text_; }

  static std::string quote(std::string_view field);

 private:
  std::size_t columns_;
  std::size_t fields_in_row_ = 0;
  std::size_t rows_ = 0;
  std::string row_;
  std::string text_;
};

}  // namespace ampscope::reports
