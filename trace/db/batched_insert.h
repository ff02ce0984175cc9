#pragma once
// Inserts rows of integers into one table kRowsPerInsert at a time, through one multi-row INSERT.
// The profile's big tables (kernels, launches, ranges, memory ops, synchronizations, gradient
// bins) hold only integers, a handful per row; for rows that narrow SQLite's cost per statement
// (a VM run and a step) is most of the cost of the row, so batching them halves a writer's time.
// Rows still buffered go in when flush() is called, which ProfileAppender does before every commit.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::trace::db {

class BatchedInsert {
 public:
  static constexpr std::size_t kRowsPerInsert = 256;

  // Prepares "INSERT INTO table VALUES (?, ...)" for one row and for kRowsPerInsert rows.
  static Result<BatchedInsert> prepare(SqliteDatabase& db, std::string_view table, std::size_t columns);

  // Buffers one row (columns() values); inserts the batch once it is full.
  template <std::size_t N>
  Status add(const std::array<std::int64_t, N>& row) {
    static_assert(N > 0);
    if (N != columns_) return columnCountMismatch(N);
    pending_.insert(pending_.end(), row.begin(), row.end());
    return pending_.size() == kRowsPerInsert * columns_ ? flush() : Status{};
  }
  // Inserts every buffered row. The buffer is emptied even when an insert fails: a failed
  // batch is reported once, not again with the next one.
  Status flush();

  std::size_t columns() const { return columns_; }
  std::size_t pendingRows() const { return pending_.size() / columns_; }

 private:
  BatchedInsert(std::string_view table, std::size_t columns, Statement one_row, Statement full_batch);
  Status columnCountMismatch(std::size_t given) const;

  std::string table_;  // for messages
  std::size_t columns_;
  Statement one_row_;
  Statement full_batch_;
  std::vector<std::int64_t> pending_;  // row after row, columns_ values each
};

}  // namespace ampscope::trace::db
