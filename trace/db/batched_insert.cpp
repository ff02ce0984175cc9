#include "trace/db/batched_insert.h"

#include <fmt/format.h>

namespace ampscope::trace::db {

namespace {

std::string insertSql(std::string_view table, std::size_t columns, std::size_t rows) {
  std::string row = "(?";
  for (std::size_t c = 1; c < columns; ++c) row += ", ?";
  row += ")";
  std::string sql = fmt::format("INSERT INTO {} VALUES {}", table, row);
  for (std::size_t r = 1; r < rows; ++r) sql += ", " + row;
  return sql;
}

}  // namespace

Result<BatchedInsert> BatchedInsert::prepare(SqliteDatabase& db, std::string_view table, std::size_t columns) {
  if (columns == 0) return Error{fmt::format("{}: a batched insert needs at least one column", table)};
  auto one_row = db.prepare(insertSql(table, columns, 1));
  if (!one_row) return one_row.error();
  auto full_batch = db.prepare(insertSql(table, columns, kRowsPerInsert));
  if (!full_batch) return full_batch.error();
  return BatchedInsert(table, columns, std::move(one_row).value(), std::move(full_batch).value());
}

BatchedInsert::BatchedInsert(std::string_view table, std::size_t columns, Statement one_row, Statement full_batch)
    : table_(table), columns_(columns), one_row_(std::move(one_row)), full_batch_(std::move(full_batch)) {
  pending_.reserve(kRowsPerInsert * columns_);
}

Status BatchedInsert::flush() {
  const bool full = pending_.size() == kRowsPerInsert * columns_;
  Statement& statement = full ? full_batch_ : one_row_;
  Status status;
  for (std::size_t row = 0; row < pending_.size() / columns_ && status; ++row) {
    // A full batch binds every row into one statement; otherwise each row is one insert.
    const std::size_t first_parameter = full ? row * columns_ : 0;
    for (std::size_t c = 0; c < columns_; ++c) {
      statement.bind(static_cast<int>(first_parameter + c + 1), pending_[row * columns_ + c]);
    }
    if (!full) status = statement.run();
  }
  if (full && status) status = statement.run();
  pending_.clear();
  return status;
}

Status BatchedInsert::columnCountMismatch(std::size_t given) const {
  return Error{fmt::format("{}: a row of {} values for a table of {} columns", table_, given, columns_)};
}

}  // namespace ampscope::trace::db
