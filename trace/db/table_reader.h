#pragma once
// Reads a whole table into a vector in rowid order. Tables of a few hundred thousand rows or
// more are read in two halves by two connections at once: SQLite's per-row cost, not the disk,
// bounds how fast a profile loads, and this build's machines have two cores or more.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/run_beside.h"
#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::trace::db {

// An ampscope profile is read memory-mapped, both connections (docs/benchmarks.md, "Profile
// database read"): its tables are read once, in order, each page copied out of the page cache
// otherwise.
inline constexpr std::int64_t kProfileMappedBytes = std::int64_t{1} << 30;

struct RowidSpan {
  std::int64_t first = 0;
  std::int64_t last = -1;
  // In unsigned arithmetic: rowids may span the whole 64-bit range.
  std::uint64_t size() const {
    return static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first) + 1;
  }
};

// Whether span can be the rowids 1..n of a table written in one go: no longer than the database
// (with its WAL) has bytes, since every row takes some. Rowids of another writer's or a damaged
// database may be sparse (1 and 2^62), and a vector of the span's size cannot be allocated.
bool denseRowids(SqliteDatabase& db, const RowidSpan& span);

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
  if (span->size() < kRowsForTwoReaders || !denseRowids(db, *span)) {
    rows.clear();
    auto statement = selectRowidRange(db, table, columns, span->first, span->last);
    if (!statement) return statement.error();
    while (statement->step()) {
      Row& row = rows.emplace_back();
      if (Status read = readRow(static_cast<std::int64_t>(rows.size()), *statement, row); !read) return read;
    }
    return statement->status();
  }
  // Rowids of a profile written in one go are 1..n: room for the whole span, trimmed after.
  rows.assign(static_cast<std::size_t>(span->size()), Row{});
  // Each half writes below its limit only: a damaged B-tree can return more rows than its rowid
  // span holds (the profile fuzz harness found one writing past the vector).
  const auto readRange = [&](SqliteDatabase& connection, std::int64_t first, std::int64_t last,
                             std::size_t offset, std::size_t limit, std::size_t& count) -> Status {
    auto statement = selectRowidRange(connection, table, columns, first, last);
    if (!statement) return statement.error();
    std::size_t index = offset;
    while (statement->step()) {
      if (index >= limit) {
        return Error{connection.path() + ": table '" + std::string(table) +
                     "' has more rows than rowids between " + std::to_string(first) + " and " +
                     std::to_string(last) + " (a damaged database)"};
      }
      Status read = readRow(static_cast<std::int64_t>(index + 1), *statement, rows[index]);
      if (!read) return read;
      ++index;
    }
    count = index - offset;
    return statement->status();
  };
  const std::size_t second_offset = rows.size() / 2;
  const std::int64_t middle = span->first + static_cast<std::int64_t>(second_offset) - 1;
  auto second = SqliteDatabase::open(db.path(), SqliteDatabase::Mode::kReadOnly);
  if (!second) return second.error();
  second->mapPages(kProfileMappedBytes);
  std::size_t second_count = 0;
  Status second_status;
  // Should the first half throw, the second's end is waited for as the future is destroyed.
  auto second_half = runBeside(true, [&] {
    second_status = readRange(*second, middle + 1, span->last, second_offset, rows.size(), second_count);
  });
  std::size_t first_count = 0;
  Status first_status = readRange(db, span->first, middle, 0, second_offset, first_count);
  second_half.get();
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
