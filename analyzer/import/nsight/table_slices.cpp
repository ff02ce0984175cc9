#include "analyzer/import/nsight/table_slices.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "base/task_queue.h"
#include "trace/db/sqlite_database.h"
#include "trace/db/table_reader.h"

namespace ampscope::analyzer::import {

using trace::Error;
using trace::Status;
using trace::db::SqliteDatabase;

trace::Result<std::vector<RowidSlice>> rowidSlices(SqliteDatabase& db, std::string_view table) {
  std::vector<RowidSlice> slices;
  if (!db.hasTable(table)) return slices;
  auto rowids = trace::db::rowidSpan(db, table);
  if (!rowids) return rowids.error();
  const std::int64_t first = rowids->first;
  const std::int64_t last = rowids->last;
  if (last < first) return slices;  // no rows
  // Unsigned: the span of rowids near both ends of the 64-bit range does not fit a signed one.
  const std::uint64_t span = rowids->size();
  // Rowids spread too wide to cut (or all 2^64 of them), or reaching the largest rowid, past which
  // no slice could end: one slice, every rowid.
  if (span == 0 || span / kRowidsPerSlice >= kMaxSlices || last == std::numeric_limits<std::int64_t>::max()) {
    slices.push_back(kEveryRowid);
    return slices;
  }
  for (std::int64_t at = first; at <= last;) {
    const std::int64_t end = last - at < kRowidsPerSlice ? last + 1 : at + kRowidsPerSlice;
    slices.push_back({at, end});
    if (end > last) break;
    at = end;
  }
  return slices;
}

trace::Result<trace::db::Statement> selectSlice(SqliteDatabase& db, std::string_view table,
                                                const std::vector<std::string_view>& columns, RowidSlice slice,
                                                const RowCondition& condition) {
  const std::vector<std::string> present = db.columns(table);
  if (present.empty()) return Error{fmt::format("{}: table '{}' is missing", db.path(), table)};
  std::string select;
  for (std::string_view column : columns) {
    if (std::find(present.begin(), present.end(), column) == present.end()) {
      return Error{fmt::format("{}: table '{}' has no column '{}'", db.path(), table, column)};
    }
    select += fmt::format("{}, ", column);
  }
  // Every rowid: the bound is inclusive, since no end past the largest rowid fits.
  const bool whole = slice.end == kEveryRowid.end;
  auto statement = db.prepare(fmt::format("SELECT {}rowid FROM {} WHERE rowid >= ?1 AND rowid {} ?2{}{}", select,
                                          table, whole ? "<=" : "<", condition.sql.empty() ? "" : " AND ",
                                          condition.sql));
  if (!statement) return statement.error();
  statement->bind(1, slice.first);
  statement->bind(2, slice.end);
  for (std::size_t i = 0; i < condition.values.size(); ++i) statement->bind(static_cast<int>(i) + 3, condition.values[i]);
  return statement;
}

Status runSliceTasks(SqliteDatabase& db, unsigned threads, const std::vector<SliceTask>& tasks) {
  std::vector<std::optional<Status>> results(tasks.size());
  // The first failed task in the order given: tasks after it need not run, tasks before it must
  // (their error, if any, is the one to report, whatever the order they ran in).
  std::atomic<std::size_t> first_failed{tasks.size()};
  // A connection per worker: db for the calling thread, and one more for each other.
  std::vector<SqliteDatabase> connections;
  const std::size_t wanted = std::min<std::size_t>(std::max(1u, threads), tasks.size());
  for (std::size_t t = 1; t < wanted; ++t) {
    auto connection = SqliteDatabase::open(db.path(), SqliteDatabase::Mode::kReadOnly);
    if (!connection) break;  // fewer workers: the tasks are the same
    connections.push_back(std::move(connection).value());
  }
  runTasks(tasks.size(), connections.size() + 1, [&](std::size_t i, std::size_t worker) {
    if (i > first_failed.load()) return;
    SqliteDatabase& connection = worker == 0 ? db : connections[worker - 1];
    try {
      results[i] = tasks[i](connection);
    } catch (const std::exception& e) {  // out of memory, above all: an error, not a terminate
      results[i] = Error{fmt::format("{}: reading failed: {}", db.path(), e.what())};
    }
    if (*results[i]) return;
    std::size_t seen = first_failed.load();
    while (i < seen && !first_failed.compare_exchange_weak(seen, i)) {
    }
  });
  for (const std::optional<Status>& result : results) {
    if (result && !*result) return *result;
  }
  return {};
}

}  // namespace ampscope::analyzer::import
