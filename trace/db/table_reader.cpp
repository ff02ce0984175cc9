#include "trace/db/table_reader.h"

#include <fmt/format.h>

namespace ampscope::trace::db {

Result<RowidSpan> rowidSpan(SqliteDatabase& db, std::string_view table) {
  auto statement = db.prepare(fmt::format("SELECT min(rowid), max(rowid) FROM {}", table));
  if (!statement) return statement.error();
  RowidSpan span;
  if (statement->step() && !statement->isNull(0)) span = {statement->int64(0), statement->int64(1)};
  if (Status status = statement->status(); !status) return status.error();
  return span;
}

Result<Statement> selectRowidRange(SqliteDatabase& db, std::string_view table,
                                   const std::vector<std::string_view>& columns,
                                   std::int64_t first, std::int64_t last) {
  return selectColumns(db, table, columns, fmt::format("rowid BETWEEN {} AND {}", first, last));
}

}  // namespace ampscope::trace::db
