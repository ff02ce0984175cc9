// A page scan must give exactly what SQLite's statements give for the same rows, or decline, or
// give up: never other values. These tests compare the two on tables made to cover the record
// format (every integer size, NULLs, long text across overflow pages, rowid gaps, trees of several
// levels, small and large pages), check what it declines and gives up on, and feed it corrupt and
// truncated files, which must end in giving up or in rows, never in a crash or a hang.

#include "trace/db/table_page_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

struct Row {
  std::int64_t rowid = 0;
  std::vector<std::int64_t> ints;
  std::vector<bool> nulls;
  std::string text;
  bool operator==(const Row&) const = default;
};

// The rows of `table` with rowids in [first, last]: integer columns `ints` and text column `text`.
template <typename Source>
Row rowOf(const Source& s, std::int64_t rowid, std::size_t ints) {
  Row row{.rowid = rowid, .ints = {}, .nulls = {}, .text = std::string(s.text(static_cast<int>(ints)))};
  for (std::size_t i = 0; i < ints; ++i) {
    row.ints.push_back(s.int64(static_cast<int>(i)));
    row.nulls.push_back(s.isNull(static_cast<int>(i)));
  }
  return row;
}

std::vector<Row> bySql(SqliteDatabase& db, const std::string& table, const std::vector<std::string_view>& columns,
                       std::int64_t first, std::int64_t last) {
  std::string select;
  for (std::string_view c : columns) select += std::string(c) + ", ";
  auto statement = db.prepare("SELECT " + select + "rowid FROM " + table + " WHERE rowid >= ?1 AND rowid <= ?2");
  EXPECT_TRUE(statement) << statement.error().message;
  statement->bind(1, first);
  statement->bind(2, last);
  std::vector<Row> rows;
  while (statement->step()) rows.push_back(rowOf(*statement, statement->int64(static_cast<int>(columns.size())), columns.size() - 1));
  EXPECT_TRUE(statement->ok());
  return rows;
}

std::vector<Row> byPages(SqliteDatabase& db, const std::string& table, const std::vector<std::string_view>& columns,
                         std::int64_t first, std::int64_t last) {
  std::optional<TablePageScan> scan = TablePageScan::open(db, table, columns, first, last);
  EXPECT_TRUE(scan.has_value());
  if (!scan) return {};
  std::vector<Row> rows;
  while (scan->step()) rows.push_back(rowOf(*scan, scan->rowid(), columns.size() - 1));
  EXPECT_FALSE(scan->gaveUp());
  return rows;
}

class TablePageScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("table_page_scan_test_" + std::to_string(getpid()) + ".sqlite")).string();
    std::filesystem::remove(path_);
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove(path_);
    std::filesystem::remove(path_ + "-wal");
    std::filesystem::remove(path_ + "-shm");
  }

  SqliteDatabase& create(int page_size) {
    auto opened = SqliteDatabase::open(path_, SqliteDatabase::Mode::kCreate);
    EXPECT_TRUE(opened) << opened.error().message;
    db_.emplace(std::move(opened).value());
    EXPECT_TRUE(db_->execute("PRAGMA page_size=" + std::to_string(page_size)));
    return *db_;
  }
  SqliteDatabase& reopen() {
    db_.reset();
    auto opened = SqliteDatabase::open(path_, SqliteDatabase::Mode::kReadOnly);
    EXPECT_TRUE(opened) << opened.error().message;
    db_.emplace(std::move(opened).value());
    return *db_;
  }

  // Rows of every integer size, NULLs, text from none to several overflow pages long, and rowids
  // with gaps: `rows` rows from one seed.
  void fill(SqliteDatabase& db, int rows) {
    ASSERT_TRUE(db.execute("CREATE TABLE events (start INTEGER NOT NULL, small INTEGER, wide INTEGER, text TEXT, "
                           "other TEXT)"));
    ASSERT_TRUE(db.execute("BEGIN"));
    auto insert = db.prepare("INSERT INTO events (rowid, start, small, wide, text, other) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    ASSERT_TRUE(insert);
    std::mt19937_64 random(7);
    const std::int64_t edges[] = {0, 1, -1, 127, -128, 128, 32767, -32768, 8388607, -8388608, 2147483647,
                                  -2147483648LL, 140737488355327LL, -140737488355328LL, kMax, kMin};
    std::int64_t rowid = 0;
    for (int i = 0; i < rows; ++i) {
      rowid += 1 + (i % 97 == 0 ? static_cast<std::int64_t>(random() % 100000) : 0);
      insert->bind(1, rowid);
      insert->bind(2, static_cast<std::int64_t>(random() >> 1));
      if (i % 5 == 0) {
        insert->bindNull(3);
      } else {
        insert->bind(3, edges[random() % std::size(edges)]);
      }
      insert->bind(4, static_cast<std::int64_t>(random()));
      const std::size_t length = i % 211 == 0 ? 3000 + random() % 20000 : random() % 60;
      std::string text(length, ' ');
      for (char& c : text) c = static_cast<char>('a' + random() % 26);
      if (i % 7 == 0) {
        insert->bindNull(5);
      } else {
        insert->bind(5, std::string_view(text));
      }
      insert->bind(6, std::string_view("x"));
      ASSERT_TRUE(insert->run());
    }
    ASSERT_TRUE(db.execute("COMMIT"));
  }

  std::string path_;
  std::optional<SqliteDatabase> db_;
};

const std::vector<std::string_view> kColumns = {"start", "small", "wide", "text"};

TEST_F(TablePageScanTest, GivesWhatAStatementGivesForEverySpanOfRowids) {
  for (const int page_size : {512, 4096, 65536}) {
    SCOPED_TRACE(page_size);
    fill(create(page_size), 20000);
    SqliteDatabase& db = reopen();
    const std::vector<Row> all = bySql(db, "events", kColumns, kMin, kMax);
    ASSERT_EQ(all.size(), 20000u);
    EXPECT_EQ(byPages(db, "events", kColumns, kMin, kMax), all);
    // Spans that start and end inside leaves, on rowids that are and are not there, and beyond.
    const std::int64_t last = all.back().rowid;
    for (const auto& [first, end] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1}, {2, 131073}, {all[5000].rowid, all[5000].rowid}, {all[5000].rowid + 1, all[12000].rowid - 1},
             {last, kMax}, {last + 1, kMax}, {kMin, 0}, {50, 40}}) {
      SCOPED_TRACE(first);
      EXPECT_EQ(byPages(db, "events", kColumns, first, end), bySql(db, "events", kColumns, first, end));
    }
    db_.reset();
    std::filesystem::remove(path_);
  }
}

// Bytes reserved at the end of every page (for a checksum or an encryption extension) shrink
// what a page holds, and so where a record overflows and how much each overflow page carries.
TEST_F(TablePageScanTest, ReadsPagesWithReservedBytesAtTheirEnd) {
  SqliteDatabase& made = create(4096);
  int reserved = 40;
  ASSERT_EQ(sqlite3_file_control(made.handle(), "main", SQLITE_FCNTL_RESERVE_BYTES, &reserved), SQLITE_OK);
  fill(made, 3000);
  SqliteDatabase& db = reopen();
  std::ifstream in(path_, std::ios::binary);  // the header's byte 20: the bytes reserved
  char bytes[21] = {};
  in.read(bytes, sizeof bytes);
  ASSERT_EQ(static_cast<unsigned char>(bytes[20]), 40u);
  EXPECT_EQ(byPages(db, "events", kColumns, kMin, kMax), bySql(db, "events", kColumns, kMin, kMax));
}

TEST_F(TablePageScanTest, ReadsColumnsInAnyOrderAndAnEmptyTable) {
  SqliteDatabase& made = create(4096);
  fill(made, 500);
  ASSERT_TRUE(made.execute("CREATE TABLE empty (a INTEGER, b TEXT)"));
  SqliteDatabase& db = reopen();
  const std::vector<std::string_view> backwards = {"wide", "small", "START", "other"};
  EXPECT_EQ(byPages(db, "events", backwards, kMin, kMax), bySql(db, "events", backwards, kMin, kMax));
  EXPECT_TRUE(byPages(db, "empty", {"a", "b"}, kMin, kMax).empty());
}

TEST_F(TablePageScanTest, AColumnAddedLaterIsNullInTheRowsWrittenBefore) {
  SqliteDatabase& made = create(4096);
  fill(made, 300);
  ASSERT_TRUE(made.execute("ALTER TABLE events ADD COLUMN later INTEGER"));
  ASSERT_TRUE(made.execute("UPDATE events SET later = 5 WHERE rowid % 2 = 0"));
  SqliteDatabase& db = reopen();
  const std::vector<std::string_view> columns = {"later", "start", "text"};
  const std::vector<Row> rows = byPages(db, "events", columns, kMin, kMax);
  EXPECT_EQ(rows, bySql(db, "events", columns, kMin, kMax));
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(rows[0].nulls[0] || rows[1].nulls[0]);
}

TEST_F(TablePageScanTest, DeclinesWhatSqliteMustRead) {
  SqliteDatabase& made = create(4096);
  fill(made, 50);
  ASSERT_TRUE(made.execute("CREATE TABLE keyed (id INTEGER PRIMARY KEY, v INTEGER, t TEXT)"));
  ASSERT_TRUE(made.execute("INSERT INTO keyed (v, t) VALUES (3, 'c'), (4, 'd')"));
  ASSERT_TRUE(made.execute("CREATE TABLE generated (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL)"));
  ASSERT_TRUE(made.execute("ALTER TABLE events ADD COLUMN defaulted INTEGER DEFAULT 7"));
  SqliteDatabase& db = reopen();
  EXPECT_FALSE(TablePageScan::open(db, "keyed", {"id", "t"}, kMin, kMax));  // id is the rowid, stored NULL
  EXPECT_FALSE(TablePageScan::open(db, "generated", {"a"}, kMin, kMax));
  EXPECT_FALSE(TablePageScan::open(db, "events", {"start", "defaulted"}, kMin, kMax));
  EXPECT_FALSE(TablePageScan::open(db, "events", {"start", "absent"}, kMin, kMax));
  EXPECT_FALSE(TablePageScan::open(db, "missing", {"a"}, kMin, kMax));
  // The primary key not asked for: the other columns are read.
  EXPECT_EQ(byPages(db, "keyed", {"v", "t"}, kMin, kMax), bySql(db, "keyed", {"v", "t"}, kMin, kMax));
}

TEST_F(TablePageScanTest, DeclinesAFileInWriteAheadLogMode) {
  SqliteDatabase& made = create(4096);
  fill(made, 50);
  ASSERT_TRUE(made.execute("PRAGMA journal_mode=WAL"));
  SqliteDatabase& db = reopen();
  EXPECT_FALSE(TablePageScan::open(db, "events", kColumns, kMin, kMax));
}

TEST_F(TablePageScanTest, GivesUpOnAValueWhoseConversionSqliteDefines) {
  SqliteDatabase& made = create(4096);
  ASSERT_TRUE(made.execute("CREATE TABLE mixed (a INTEGER, b)"));
  ASSERT_TRUE(made.execute("INSERT INTO mixed VALUES (1, 'one'), (2.5, 'two'), (3, 3)"));
  SqliteDatabase& db = reopen();
  {
    std::optional<TablePageScan> scan = TablePageScan::open(db, "mixed", {"a", "b"}, kMin, kMax);
    ASSERT_TRUE(scan);
    ASSERT_TRUE(scan->step());
    EXPECT_EQ(scan->int64(0), 1);
    EXPECT_EQ(scan->text(1), "one");
    ASSERT_TRUE(scan->step());
    (void)scan->int64(0);  // a REAL
    EXPECT_TRUE(scan->gaveUp());
    EXPECT_FALSE(scan->step());
  }
  std::optional<TablePageScan> scan = TablePageScan::open(db, "mixed", {"b"}, 3, 3);
  ASSERT_TRUE(scan);
  ASSERT_TRUE(scan->step());
  (void)scan->text(0);  // an INTEGER (the column has no type to make it text)
  EXPECT_TRUE(scan->gaveUp());
}

// Reads every row of `table` through a page scan of a damaged copy of the file: it may give up,
// but must end, and every row it gives has rowids going up.
void scanDamaged(const std::string& path, const std::string& table) {
  auto opened = SqliteDatabase::open(path, SqliteDatabase::Mode::kReadOnly);
  if (!opened) return;  // SQLite refuses it outright
  std::optional<TablePageScan> scan = TablePageScan::open(*opened, table, kColumns, kMin, kMax);
  if (!scan) return;
  std::optional<std::int64_t> last;
  std::size_t rows = 0;
  while (scan->step()) {
    if (last) {
      ASSERT_GT(scan->rowid(), *last);
    }
    last = scan->rowid();
    (void)scan->text(3);
    (void)scan->int64(1);
    ASSERT_LT(++rows, 1000000u);
  }
}

TEST_F(TablePageScanTest, ADamagedOrTruncatedFileEndsInGivingUpOrRowsNeverACrash) {
  fill(create(1024), 3000);
  db_.reset();
  std::vector<char> original;
  {
    std::ifstream in(path_, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(original.size(), 4096u);
  const std::string damaged = path_ + ".damaged";
  std::mt19937 random(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<char> bytes = original;
    if (trial % 10 == 9) {
      bytes.resize(1024 + random() % (bytes.size() - 1024));  // truncated past the first page
    } else {
      for (int flip = 0; flip < 1 + trial % 8; ++flip) {
        // Past page 1 (the schema), where SQLite would refuse the file before any scan.
        const std::size_t at = 1024 + random() % (bytes.size() - 1024);
        bytes[at] = static_cast<char>(random());
      }
    }
    {
      std::ofstream out(damaged, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    SCOPED_TRACE(trial);
    scanDamaged(damaged, "events");
  }
  std::filesystem::remove(damaged);
}

}  // namespace
}  // namespace ampscope::trace::db
