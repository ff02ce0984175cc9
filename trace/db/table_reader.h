#pragma once
// Reads a whole table into a vector in rowid order. Tables of a few hundred thousand rows or
// more are read in two halves by two connections at once: SQLite's per-row cost, not the disk,
// bounds how fast a profile loads, and this build's machines have two cores or more.

#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::trace::db {

struct RowidSpan {
  std::int64_t first = 0;
  std::int64_t last = -1;
  std::size_t size() const { return static_cast<std::size_t>(last - first + 1); }
};

// The first and last rowid of table: two B-tree descents, where count(*) reads every page.
Result<RowidSpan> rowidSpan(SqliteDatabase& db, std::string_view table);
// "SELECT columns FROM table WHERE rowid BETWEEN first AND last ORDER BY rowid".
Result<Statement> selectRowidRange(SqliteDatabase& db, std::string_view table,
                                   const std::vector<std::string_view>& columns,
                                   std::int64_t first, std::int64_t last);

inline constexpr std::size_t kRowsForTwoReaders = 200000;

// readRow(row_number, statement, row) fills one row; it runs on two threads at once for large
// tables, so it may only read shared state. Rows of tables with deleted rows stay contiguous.
template <typename Row, typename ReadRow>
Status readTableRows(SqliteDatabase& db, std::string_view table,
                     const std::vector<std::string_view>& columns, std::vector<Row>& rows,
                     ReadRow readRow) {
  if (auto valid = selectColumns(db, table, columns, "0"); !valid) return valid.error();
  auto span = rowidSpan(db, table);
  if (!span) return span.error();
  // Rowids of a profile written in one go are 1..n: room for the whole span, trimmed after.
  rows.assign(span->size(), Row{});
  const auto readRange = [&](SqliteDatabase& connection, std::int64_t first, std::int64_t last,
                             std::size_t offset, std::size_t& count) -> Status {
    auto statement = selectRowidRange(connection, table, columns, first, last);
    if (!statement) return statement.error();
    std::size_t index = offset;
    while (statement->step()) {
      Status read = readRow(static_cast<std::int64_t>(index + 1), *statement, rows[index]);
      if (!read) return read;
      ++index;
    }
    count = index - offset;
    return statement->status();
  };
  if (span->size() < kRowsForTwoReaders) {
    std::size_t count = 0;
    Status status = readRange(db, span->first, span->last, 0, count);
    rows.resize(count);
    return status;
  }
  const std::size_t second_offset = span->size() / 2;
  const std::int64_t middle = span->first + static_cast<std::int64_t>(second_offset) - 1;
  auto second = SqliteDatabase::open(db.path(), SqliteDatabase::Mode::kReadOnly);
  if (!second) return second.error();
  std::size_t second_count = 0;
  Status second_status;
  std::thread reader(
      [&] { second_status = readRange(*second, middle + 1, span->last, second_offset, second_count); });
  std::size_t first_count = 0;
  Status first_status = readRange(db, span->first, middle, 0, first_count);
  reader.join();
  if (!first_status) return first_status;
  if (!second_status) return second_status;
  if (first_count < second_offset) {  // deleted rows left a gap between the halves
    const auto from = rows.begin() + static_cast<std::ptrdiff_t>(second_offset);
    std::move(from, from + static_cast<std::ptrdiff_t>(second_count),
              rows.begin() + static_cast<std::ptrdiff_t>(first_count));
  }
  rows.resize(first_count + second_count);
  return {};
}

}  // namespace ampscope::trace::db
