#pragma once
// A fixture for the SQLite importers' tests (Nsight Systems, nvprof): each test gets its own
// database file, built from the SQL the test gives, which it may alter freely before importing.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "../test_support.h"
#include "trace/db/sqlite_database.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::test {

template <trace::Result<trace::Trace> (*Import)(trace::db::SqliteDatabase&)>
class SqliteImporterTest : public ::testing::Test {
 protected:
  // Creates the database from sql, in place of any the test made before (under
  // ASSERT_NO_FATAL_FAILURE: it fails the test where SQLite refuses the SQL).
  void create(const std::string& sql) {
    db_.reset();
    path_ = scratch_.file("profile.sqlite");
    std::filesystem::remove(path_);
    auto db = trace::db::SqliteDatabase::open(path_, trace::db::SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(db) << db.error().message;
    db_ = std::make_unique<trace::db::SqliteDatabase>(std::move(*db));
    alter(sql);
  }

  void alter(const std::string& sql) {
    const trace::Status status = db_->execute(sql);
    ASSERT_TRUE(status) << status.error().message;
  }

  trace::Trace import() {
    auto result = Import(*db_);
    EXPECT_TRUE(result) << result.error().message;
    return result ? std::move(*result) : trace::Trace{};
  }

  std::string importError() {
    auto result = Import(*db_);
    EXPECT_FALSE(result) << "the import should have failed";
    return result ? std::string() : result.error().message;
  }

  static const trace::Range* rangeNamed(const trace::Trace& t, std::string_view name) {
    for (const trace::Range& r : t.ranges) {
      if (t.str(r.name) == name) return &r;
    }
    return nullptr;
  }

  static bool encloses(const trace::Range& range, std::int64_t start_ns, std::int64_t end_ns) {
    return range.start_ns <= start_ns && end_ns <= range.end_ns;
  }

  ScratchDir scratch_;  // declared first: outlives the database file it holds
  std::string path_;
  std::unique_ptr<trace::db::SqliteDatabase> db_;
};

}  // namespace ampscope::test
