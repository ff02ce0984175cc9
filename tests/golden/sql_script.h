#pragma once
// SQLite inputs for the golden cases, kept as text: a script of statements that a test writes
// (and checks in) and runs into a database, and a database read back as such a script, so that a
// binary file never needs comparing.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::golden {

// A value written into the script as it is: NULL, a blob X'...'.
struct SqlLiteral {
  std::string text;
};
inline const SqlLiteral kSqlNull{"NULL"};

class SqlScript {
 public:
  // A statement, written as given (a CREATE TABLE, a comment line starting "--").
  void add(std::string_view sql) {
    text_ += sql;
    text_ += sql.starts_with("--") ? "\n" : ";\n";
  }

  // INSERT INTO table VALUES (values...): integers as numbers, text quoted.
  template <typename... Values>
  void insert(std::string_view table, const Values&... values) {
    std::string row;
    ((row += (row.empty() ? "" : ", ") + literal(values)), ...);
    text_ += fmt::format("INSERT INTO {} VALUES ({});\n", table, row);
  }

  const std::string& text() const { return text_; }

 private:
  static std::string literal(std::int64_t value) { return std::to_string(value); }
  static std::string literal(int value) { return std::to_string(value); }
  static std::string literal(const SqlLiteral& value) { return value.text; }
  static std::string literal(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted + "'";
  }
  static std::string literal(const std::string& text) { return literal(std::string_view(text)); }
  static std::string literal(const char* text) { return literal(std::string_view(text)); }

  std::string text_;
};

// Creates the database at path from a script.
inline trace::Status writeDatabase(const std::string& path, const std::string& script) {
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
  if (!db) return db.error();
  return db->execute(script);
}

// A REAL as the shortest text that reads back as the same double (SQLite's own quote() writes
// 20 digits where 15 do not round-trip, in a form that has changed between its versions).
inline std::string realLiteral(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";  // still a REAL when read back
  return text;
}

// The database at path as a script: each table (by name) with its CREATE statement, then its
// rows in the order they were inserted, reals as realLiteral writes them, other values as
// SQLite's quote() does.
inline trace::Result<std::string> databaseAsScript(const std::string& path) {
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
  if (!db) return db.error();
  auto tables = db->prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name");
  if (!tables) return tables.error();
  std::string out;
  while (tables->step()) {
    const std::string table(tables->text(0));
    out += fmt::format("{};\n", tables->text(1));
    // Per column: its type, its quoted text, its value.
    std::string select;
    const std::vector<std::string> columns = db->columns(table);
    for (const std::string& column : columns) {
      select += fmt::format("{}typeof(\"{}\"), quote(\"{}\"), \"{}\"", select.empty() ? "" : ", ", column, column, column);
    }
    auto rows = db->prepare(fmt::format("SELECT {} FROM \"{}\" ORDER BY rowid", select, table));
    if (!rows) return rows.error();
    while (rows->step()) {
      std::string values;
      for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
        if (!values.empty()) values += ", ";
        values += rows->text(3 * i) == "real" ? realLiteral(rows->real(3 * i + 2)) : std::string(rows->text(3 * i + 1));
      }
      out += fmt::format("INSERT INTO {} VALUES ({});\n", table, values);
    }
    if (trace::Status read = rows->status(); !read) return read.error();
  }
  if (trace::Status read = tables->status(); !read) return read.error();
  return out;
}

}  // namespace ampscope::golden
