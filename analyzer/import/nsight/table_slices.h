#pragma once
// Reading an SQLite export's large tables on several threads: each table's rows cut into slices of
// rowids, each slice a task that a thread runs on its own read-only connection to the file. A
// slice decodes into records of its own, so that no two threads write the same memory, and the
// slices are put together in rowid order afterwards: the result does not depend on which thread
// read what, or when.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "trace/result.h"

namespace ampscope::trace::db {
class SqliteDatabase;
class Statement;
class TablePageScan;
}  // namespace ampscope::trace::db

namespace ampscope::analyzer::import {

// Rowids [first, end) of one table.
struct RowidSlice {
  std::int64_t first = 0;
  std::int64_t end = 0;
};

// The slice of every rowid of a table (its end is the largest rowid there can be, included).
inline constexpr RowidSlice kEveryRowid{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};

// How many rowids one slice spans: small enough that a few dozen slices keep every thread busy to
// the end of a large table, large enough that preparing a statement per slice costs nothing.
inline constexpr std::int64_t kRowidsPerSlice = std::int64_t{1} << 17;

// The slices of table's rowids, from its smallest to its largest rowid (trace::db::rowidSpan: two
// look-ups in the table's b-tree, no scan). Empty for an empty or absent table. Exports number
// their rows densely, so a slice holds about as many rows as it spans; a table whose rowids are
// spread far wider than any export writes (more than kMaxSlices slices) is one slice, read by one
// thread.
inline constexpr std::size_t kMaxSlices = 4096;
trace::Result<std::vector<RowidSlice>> rowidSlices(trace::db::SqliteDatabase& db, std::string_view table);

// A condition on a slice's rows that SQLite applies before any is decoded: SQL text whose
// parameters are ?3, ?4, ... (?1 and ?2 bound the rowids), and their values in that order; and
// the same test on a row read from the file's pages, true where SQL's is true (not false, not
// NULL). Without it the rows of a condition are read through SQLite.
struct RowCondition {
  std::string sql;  // empty: every row
  std::vector<std::int64_t> values;
  std::function<bool(const trace::db::TablePageScan&)> keeps{};
};

// Prepares "SELECT columns..., rowid FROM table WHERE rowid >= first AND rowid < end [AND
// condition]": the rows of one slice in rowid order, with the rowid last (where a row is, for
// messages). Fails naming the file, the table and the column when a column is missing.
trace::Result<trace::db::Statement> selectSlice(trace::db::SqliteDatabase& db, std::string_view table,
                                                const std::vector<std::string_view>& columns, RowidSlice slice,
                                                const RowCondition& condition = {});

using SliceTask = std::function<trace::Status(trace::db::SqliteDatabase& connection)>;

// Runs every task, on up to `threads` threads at once, each thread with its own read-only
// connection to db's file (one of them db itself). Where no second connection opens, the tasks
// run one after the other on db. After a task fails no new one starts; the error returned is that
// of the first failed task in the order given, whatever the order they ran in.
trace::Status runSliceTasks(trace::db::SqliteDatabase& db, unsigned threads, const std::vector<SliceTask>& tasks);

}  // namespace ampscope::analyzer::import
