#include "trace/db/sqlite_database.h"

#include <sqlite3.h>

#include <algorithm>

#include <fmt/format.h>

namespace ampscope::trace::db {

Result<SqliteDatabase> SqliteDatabase::open(const std::string& path, Mode mode) {
  sqlite3* db = nullptr;
  const int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                            : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Error{fmt::format("{}: cannot open as an SQLite database: {}", path, message)};
  }
  SqliteDatabase database(db, path);
  // Reading the schema forces SQLite to look at the header: a text file fails here, not later.
  if (mode == Mode::kReadOnly) {
    rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      return Error{fmt::format("{}: not a readable SQLite database: {}", path, sqlite3_errmsg(db))};
    }
  }
  return database;
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

SqliteDatabase& SqliteDatabase::operator=(SqliteDatabase&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(db_); }

Error SqliteDatabase::error(std::string_view what) const {
  return Error{fmt::format("{}: {}: {}", path_, what, db_ ? sqlite3_errmsg(db_) : "no database")};
}

void SqliteDatabase::mapPages(std::int64_t bytes) {
  // Advice to SQLite: where it cannot map, it reads through its page cache as before.
  sqlite3_exec(db_, fmt::format("PRAGMA mmap_size={}", bytes).c_str(), nullptr, nullptr, nullptr);
}

Status SqliteDatabase::execute(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    Error error{fmt::format("{}: SQL failed ({}): {}", path_, text.substr(0, 120),
                            message ? message : "unknown error")};
    sqlite3_free(message);
    return error;
  }
  return {};
}

Result<Statement> SqliteDatabase::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return error(fmt::format("cannot prepare ({})", sql.substr(0, 160)));
  }
  return Statement(stmt, this, std::string(sql));
}

bool SqliteDatabase::hasTable(std::string_view table) {
  auto statement = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?");
  if (!statement) return false;
  statement->bind(1, table);
  return statement->step();
}

std::vector<std::string> SqliteDatabase::columns(std::string_view table) {
  std::vector<std::string> names;
  auto statement = prepare("SELECT name FROM pragma_table_info(?)");
  if (!statement) return names;
  statement->bind(1, table);
  while (statement->step()) names.emplace_back(statement->text(0));
  return names;
}

bool SqliteDatabase::hasColumn(std::string_view table, std::string_view column) {
  const std::vector<std::string> names = columns(table);
  return std::find(names.begin(), names.end(), column) != names.end();
}

Result<Statement> selectColumns(SqliteDatabase& db, std::string_view table,
                                const std::vector<std::string_view>& columns,
                                std::string_view where) {
  const std::vector<std::string> present = db.columns(table);
  if (present.empty()) {
    return Error{fmt::format("{}: table '{}' is missing", db.path(), table)};
  }
  std::string select;
  for (std::string_view column : columns) {
    bool found = false;
    for (const std::string& name : present) found = found || name == column;
    if (!found) {
      return Error{fmt::format("{}: table '{}' has no column '{}'", db.path(), table, column)};
    }
    select += select.empty() ? "" : ", ";
    select += column;
  }
  return db.prepare(fmt::format("SELECT {} FROM {}{}{} ORDER BY rowid", select, table,
                                where.empty() ? "" : " WHERE ", where));
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(other.stmt_), db_(other.db_), sql_(std::move(other.sql_)),
      error_code_(other.error_code_), error_message_(std::move(other.error_message_)) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    db_ = other.db_;
    sql_ = std::move(other.sql_);
    error_code_ = other.error_code_;
    error_message_ = std::move(other.error_message_);
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) {
    error_code_ = rc;
    error_message_ = sqlite3_errmsg(sqlite3_db_handle(stmt_));
  }
  return false;
}

Status Statement::status() const {
  if (ok()) return {};
  return Error{fmt::format("{}: SQL failed ({}): {}", db_->path(), sql_.substr(0, 160),
                           error_message_)};
}

Status Statement::run() {
  // Each run reports its own outcome: an earlier failed run (a constraint, a full disk that has
  // since been freed) must not make every later insert through this statement fail too.
  error_code_ = 0;
  error_message_.clear();
  step();
  Status result = status();
  // Bindings stay: callers bind every parameter before each run, and clearing them costs a
  // noticeable share of a bulk insert.
  sqlite3_reset(stmt_);
  return result;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}
void Statement::bindNull(int index) { sqlite3_bind_null(stmt_, index); }

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string_view Statement::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!data) return {};
  return {data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}
bool Statement::isNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

}  // namespace ampscope::trace::db
