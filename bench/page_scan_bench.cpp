// One table of an SQLite file read whole on one thread, twice: through a statement (SELECT of the
// columns, each value read as the Nsight importer reads it) and from the file's pages
// (trace/db/table_page_scan.h). Prints rows, seconds and ns a row for each, and whether the two
// gave the same values.
//   ampscope_page_scan_bench FILE TABLE COLUMN...   e.g. ... export.sqlite NVTX_EVENTS start end text
// Each column is read as text where its first non-NULL value is TEXT, else as an integer.

#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "stopwatch.h"
#include "trace/db/sqlite_database.h"
#include "trace/db/table_page_scan.h"

namespace {

using ampscope::trace::db::SqliteDatabase;
using ampscope::trace::db::TablePageScan;

constexpr std::int64_t kFirst = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kLast = std::numeric_limits<std::int64_t>::max();

// A checksum of every value read, so that neither read can be optimised away and the two can be
// compared: integers added, texts by their length and first byte, NULLs counted.
template <typename Row>
std::uint64_t digestRow(const Row& row, const std::vector<bool>& is_text, std::int64_t rowid) {
  std::uint64_t digest = static_cast<std::uint64_t>(rowid);
  for (std::size_t i = 0; i < is_text.size(); ++i) {
    const int column = static_cast<int>(i);
    if (row.isNull(column)) {
      digest = digest * 31 + 1;
    } else if (is_text[i]) {
      const std::string_view text = row.text(column);
      digest = digest * 31 + text.size() + (text.empty() ? 0 : static_cast<unsigned char>(text[0]));
    } else {
      digest = digest * 31 + static_cast<std::uint64_t>(row.int64(column));
    }
  }
  return digest;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FILE TABLE COLUMN...\n", argv[0]);
    return 2;
  }
  auto opened = SqliteDatabase::open(argv[1], SqliteDatabase::Mode::kReadOnly);
  if (!opened) {
    std::fprintf(stderr, "%s\n", opened.error().message.c_str());
    return 1;
  }
  SqliteDatabase& db = *opened;
  const std::string table = argv[2];
  std::vector<std::string_view> columns;
  std::string select;
  for (int i = 3; i < argc; ++i) {
    columns.emplace_back(argv[i]);
    select += fmt::format("{}, ", argv[i]);
  }
  std::vector<bool> is_text(columns.size(), false);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    auto type = db.prepare(fmt::format("SELECT typeof({0}) FROM {1} WHERE {0} IS NOT NULL LIMIT 1", columns[i], table));
    if (type && type->step()) is_text[i] = type->text(0) == "text";
  }

  auto statement = db.prepare(fmt::format("SELECT {}rowid FROM {}", select, table));
  if (!statement) {
    std::fprintf(stderr, "%s\n", statement.error().message.c_str());
    return 1;
  }
  std::uint64_t sql_rows = 0;
  std::uint64_t sql_digest = 0;
  const ampscope::bench::Stopwatch sql_time;
  while (statement->step()) {
    sql_digest += digestRow(*statement, is_text, statement->int64(static_cast<int>(columns.size())));
    ++sql_rows;
  }
  const double sql_seconds = sql_time.seconds();

  std::optional<TablePageScan> scan = TablePageScan::open(db, table, columns, kFirst, kLast);
  if (!scan) {
    std::fprintf(stderr, "%s: the page scan declines table %s\n", argv[1], table.c_str());
    return 1;
  }
  std::uint64_t page_rows = 0;
  std::uint64_t page_digest = 0;
  const ampscope::bench::Stopwatch page_time;
  while (scan->step()) {
    page_digest += digestRow(*scan, is_text, scan->rowid());
    ++page_rows;
  }
  const double page_seconds = page_time.seconds();

  const auto perRow = [](double seconds, std::uint64_t rows) {
    return rows == 0 ? 0.0 : seconds * 1e9 / static_cast<double>(rows);
  };
  std::printf("%-22s %12s %10s %10s\n", "", "rows", "seconds", "ns/row");
  std::printf("%-22s %12llu %10.3f %10.1f\n", "SQLite statement", static_cast<unsigned long long>(sql_rows),
              sql_seconds, perRow(sql_seconds, sql_rows));
  std::printf("%-22s %12llu %10.3f %10.1f\n", "page scan", static_cast<unsigned long long>(page_rows), page_seconds,
              perRow(page_seconds, page_rows));
  const bool same = !scan->gaveUp() && sql_rows == page_rows && sql_digest == page_digest;
  std::printf("same values: %s%s\n", same ? "yes" : "NO", scan->gaveUp() ? " (the page scan gave up)" : "");
  return same ? 0 : 1;
}
