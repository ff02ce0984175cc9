#include "trace/db/table_reader.h"

#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace ampscope::trace::db {

Result<RowidSpan> rowidSpan(SqliteDatabase& db, std::string_view table) {
  // Two subqueries: SQLite answers a lone min() or max() from the b-tree's edge, but scans the
  // whole table for both in one SELECT.
  auto statement = db.prepare(fmt::format("SELECT (SELECT min(rowid) FROM {0}), (SELECT max(rowid) FROM {0})", table));
  if (!statement) return statement.error();
  RowidSpan span;
  if (statement->step() && !statement->isNull(0)) span = {statement->int64(0), statement->int64(1)};
  if (Status status = statement->status(); !status) return status.error();
  return span;
}

bool denseRowids(SqliteDatabase& db, const RowidSpan& span) {
  std::uint64_t bytes = 0;
  for (const std::string& file : {db.path(), db.path() + "-wal"}) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (!ec) bytes += size;
  }
  return span.size() <= bytes;
}

Result<Statement> selectRowidRange(SqliteDatabase& db, std::string_view table,
                                   const std::vector<std::string_view>& columns,
                                   std::int64_t first, std::int64_t last) {
  return selectColumns(db, table, columns, fmt::format("rowid BETWEEN {} AND {}", first, last));
}

}  // namespace ampscope::trace::db
