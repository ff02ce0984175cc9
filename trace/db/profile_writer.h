#pragma once
// Writes a Trace into ampscope's profile database (WAL, batched transactions).

#include <cstddef>
#include <memory>
#include <string>

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {

class SqliteDatabase;

class ProfileWriter {
 public:
  // Creates (or truncates) path and writes the schema and its version.
  static Result<ProfileWriter> create(const std::string& path);

  ProfileWriter(ProfileWriter&&) noexcept;
  ProfileWriter& operator=(ProfileWriter&&) noexcept;
  ~ProfileWriter();

  // Writes every table of trace. Rows are inserted in transactions of kRowsPerTransaction.
  Status write(const Trace& trace);

  static constexpr std::size_t kRowsPerTransaction = 200000;

 private:
  explicit ProfileWriter(std::unique_ptr<SqliteDatabase> db);
  std::unique_ptr<SqliteDatabase> db_;
};

// Convenience: create path and write trace into it.
Status writeProfile(const std::string& path, const Trace& trace);

}  // namespace ampscope::trace::db
