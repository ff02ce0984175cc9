#include "trace/db/batched_insert.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace ampscope::trace::db {
namespace {

class BatchedInsertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("batched_insert_test_" + std::to_string(getpid()) + ".sqlite")).string();
    std::filesystem::remove(path_);
    auto opened = SqliteDatabase::open(path_, SqliteDatabase::Mode::kCreate);
    ASSERT_TRUE(opened) << opened.error().message;
    db_.emplace(std::move(opened).value());
    ASSERT_TRUE(db_->execute("CREATE TABLE rows (a INTEGER PRIMARY KEY, b INTEGER, c INTEGER)"));
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove(path_);
  }

  // Every row of the table, in rowid order, as a, b, c.
  std::vector<std::array<std::int64_t, 3>> stored() {
    std::vector<std::array<std::int64_t, 3>> rows;
    const Status read = forEachRow(*db_, "rows", {"a", "b", "c"}, [&](std::int64_t, Statement& s) {
      rows.push_back({s.int64(0), s.int64(1), s.int64(2)});
      return Status{};
    });
    EXPECT_TRUE(read) << read.error().message;
    return rows;
  }

  std::string path_;
  std::optional<SqliteDatabase> db_;
};

TEST_F(BatchedInsertTest, EveryRowArrivesInOrderWhetherInFullBatchesOrInTheRemainder) {
  auto insert = BatchedInsert::prepare(*db_, "rows", 3);
  ASSERT_TRUE(insert) << insert.error().message;
  const std::int64_t count = 2 * static_cast<std::int64_t>(BatchedInsert::kRowsPerInsert) + 37;
  ASSERT_TRUE(db_->execute("BEGIN"));
  for (std::int64_t i = 0; i < count; ++i) {
    ASSERT_TRUE(insert->add(std::array<std::int64_t, 3>{i, -i, i * 1'000'000'007}));
  }
  // Two full batches went in as they filled; the remainder waits for flush.
  EXPECT_EQ(insert->pendingRows(), 37u);
  EXPECT_EQ(stored().size(), 2 * BatchedInsert::kRowsPerInsert);
  ASSERT_TRUE(insert->flush());
  ASSERT_TRUE(db_->execute("COMMIT"));
  EXPECT_EQ(insert->pendingRows(), 0u);
  const auto rows = stored();
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(rows[static_cast<std::size_t>(i)], (std::array<std::int64_t, 3>{i, -i, i * 1'000'000'007})) << "row " << i;
  }
}

TEST_F(BatchedInsertTest, ARowOfTheWrongWidthIsRefusedNamingTheTable) {
  auto insert = BatchedInsert::prepare(*db_, "rows", 3);
  ASSERT_TRUE(insert);
  const Status added = insert->add(std::array<std::int64_t, 2>{1, 2});
  ASSERT_FALSE(added);
  EXPECT_NE(added.error().message.find("rows"), std::string::npos) << added.error().message;
  EXPECT_NE(added.error().message.find("2 values"), std::string::npos) << added.error().message;
  EXPECT_EQ(insert->pendingRows(), 0u);
}

TEST_F(BatchedInsertTest, AFailingBatchIsReportedOnceAndTheNextBatchStartsClean) {
  auto insert = BatchedInsert::prepare(*db_, "rows", 3);
  ASSERT_TRUE(insert);
  ASSERT_TRUE(insert->add(std::array<std::int64_t, 3>{1, 0, 0}));
  ASSERT_TRUE(insert->add(std::array<std::int64_t, 3>{1, 0, 0}));  // the same primary key twice
  const Status flushed = insert->flush();
  ASSERT_FALSE(flushed);
  EXPECT_NE(flushed.error().message.find("UNIQUE"), std::string::npos) << flushed.error().message;
  EXPECT_EQ(insert->pendingRows(), 0u);
  ASSERT_TRUE(insert->add(std::array<std::int64_t, 3>{2, 0, 0}));
  EXPECT_TRUE(insert->flush());
  EXPECT_EQ(stored().size(), 2u);  // key 1 once, key 2
}

TEST_F(BatchedInsertTest, AMissingTableIsAnErrorAtPrepareTime) {
  auto insert = BatchedInsert::prepare(*db_, "no_such_table", 3);
  ASSERT_FALSE(insert);
  EXPECT_NE(insert.error().message.find("no_such_table"), std::string::npos) << insert.error().message;
}

}  // namespace
}  // namespace ampscope::trace::db
