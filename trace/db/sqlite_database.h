#pragma once
// A thin RAII layer over SQLite shared by the profile database and the SQLite-based importers.
// Every failure comes back as an Error naming the file, the SQL and SQLite's own message.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trace/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ampscope::trace::db {

class Statement;

class SqliteDatabase {
 public:
  enum class Mode { kReadOnly, kCreate };

  // Opens path; kReadOnly refuses files that are not SQLite databases with a clear message.
  static Result<SqliteDatabase> open(const std::string& path, Mode mode);

  SqliteDatabase(SqliteDatabase&&) noexcept;
  SqliteDatabase& operator=(SqliteDatabase&&) noexcept;
  ~SqliteDatabase();

  Status execute(std::string_view sql);
  // Reads the first `bytes` of the file through a memory mapping instead of SQLite's page cache:
  // no copy per page, but every page read counts as the process's resident memory while the
  // connection is open. Connections do not map unless asked (the importers of foreign exports of
  // gigabytes do not: docs/formats/nsight_systems.md).
  void mapPages(std::int64_t bytes);
  Result<Statement> prepare(std::string_view sql);
  bool hasTable(std::string_view table);
  // Column names of table, in declaration order (empty when the table does not exist).
  std::vector<std::string> columns(std::string_view table);
  bool hasColumn(std::string_view table, std::string_view column);
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  // "FILE: what failed (SQL): SQLite's message".
  Error error(std::string_view what) const;

 private:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();

  // True while a row is available; false at the end. Errors: check ok() after the loop.
  bool step();
  bool ok() const { return error_code_ == 0; }
  Status status() const;
  Status run();  // step once for statements that return no rows, then reset
  void reset();

  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  void bindNull(int index);

  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string_view text(int column) const;
  bool isNull(int column) const;

 private:
  friend class SqliteDatabase;
  Statement(sqlite3_stmt* stmt, const SqliteDatabase* db, std::string sql)
      : stmt_(stmt), db_(db), sql_(std::move(sql)) {}
  sqlite3_stmt* stmt_ = nullptr;
  const SqliteDatabase* db_ = nullptr;
  std::string sql_;
  int error_code_ = 0;
  std::string error_message_;
};

// Prepares "SELECT columns FROM table [WHERE where] ORDER BY rowid" after checking that the table and each
// column exist; the error names the file, the table and the missing column.
Result<Statement> selectColumns(SqliteDatabase& db, std::string_view table,
                                const std::vector<std::string_view>& columns,
                                std::string_view where = {});

// Calls readRow(row_number, statement) for each row (1-based); a failing row stops the read.
template <typename ReadRow>
Status forEachRow(SqliteDatabase& db, std::string_view table,
                  const std::vector<std::string_view>& columns, ReadRow readRow) {
  auto statement = selectColumns(db, table, columns);
  if (!statement) return statement.error();
  std::int64_t row = 0;
  while (statement->step()) {
    ++row;
    if (Status read = readRow(row, *statement); !read) return read;
  }
  return statement->status();
}

}  // namespace ampscope::trace::db
