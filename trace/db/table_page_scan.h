#pragma once
// The rows of a span of rowids of one table, read straight from the database file's pages rather
// than through SQLite's statements, for the tables of millions of rows that importers read whole.
//
// Why: reading a row of eight columns of an Nsight Systems export through a statement costs
// SQLite about 600 ns in its virtual machine and column calls; decoding it from the b-tree pages
// costs about 130 (bench/page_scan_bench.cpp, docs/benchmarks.md). The format is SQLite's documented
// and stable file format (https://www.sqlite.org/fileformat2.html): table b-tree pages, their
// cells, overflow chains and records.
//
// It reads only what it can read exactly as SQLite would and gives up on anything else, leaving
// the caller to read the same rows with a statement: open() declines a file or table it does
// not handle (a write-ahead log, an encoding other than UTF-8, generated columns, a selected column
// that is the primary key or has a default), and a scan gives up on a page that is not what a
// table b-tree holds (a corrupt file: SQLite then says so) and on a value whose conversion SQLite
// defines (an integer asked of a REAL or a TEXT, text asked of a number or a BLOB). The pages are
// read with pread under a read transaction on the connection, so no writer changes them meanwhile;
// they pass through the system's page cache, never a mapping, so they never count as the
// process's memory.

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ampscope::trace::db {

class SqliteDatabase;

class TablePageScan {
 public:
  // A scan of the rows of `table` whose rowids are in [first, last], the values of `columns` (by
  // name) in that order; nullopt where the rows must be read with a statement instead.
  static std::optional<TablePageScan> open(SqliteDatabase& db, std::string_view table,
                                           const std::vector<std::string_view>& columns, std::int64_t first,
                                           std::int64_t last);

  TablePageScan(TablePageScan&&) noexcept;
  TablePageScan& operator=(TablePageScan&&) = delete;
  ~TablePageScan();

  // The next row, in rowid order; false at the end and once the scan gave up.
  bool step();
  // True once the scan met a page or a value it does not read (see above): the rows it gave so
  // far are to be dropped and read again with a statement.
  bool gaveUp() const { return gave_up_; }

  // The row's values, as SQLite's column functions give them: NULL reads as 0 and as "". A text
  // stays valid until the next step.
  // Defined here: the readers call them several times a row, millions of rows.
  std::int64_t rowid() const { return rowid_; }
  std::int64_t int64(int column) const {
    const Field& f = field(column);
    if (f.type >= 1 && f.type <= 6) {
      static constexpr int kBytes[7] = {0, 1, 2, 3, 4, 6, 8};
      std::uint64_t bits = (f.bytes[0] & 0x80u) != 0 ? ~std::uint64_t{0} : 0;  // big-endian, sign-extended
      for (int i = 0; i < kBytes[f.type]; ++i) bits = (bits << 8) | f.bytes[i];
      return static_cast<std::int64_t>(bits);
    }
    if (f.type == 0 || f.type == 8) return 0;  // NULL, or the constant 0
    if (f.type == 9) return 1;                 // the constant 1
    gave_up_ = true;  // a REAL, a TEXT or a BLOB: SQLite converts it
    return 0;
  }
  std::string_view text(int column) const {
    const Field& f = field(column);
    if (f.type == 0) return {};
    if (f.type < 13 || f.type % 2 == 0) {
      gave_up_ = true;  // a number or a BLOB: SQLite converts it
      return {};
    }
    return {reinterpret_cast<const char*>(f.bytes), static_cast<std::size_t>((f.type - 13) / 2)};
  }
  bool isNull(int column) const { return field(column).type == 0; }

 private:
  struct File;
  struct Level {
    std::uint32_t page = 0;
    std::vector<std::uint8_t> bytes;
    int cells = 0;
    int next = 0;  // the cell whose child comes next; `cells`: the right-most child
  };
  // A value of the row: its serial type and where its bytes are.
  struct Field {
    std::uint64_t type = 0;
    const std::uint8_t* bytes = nullptr;
  };

  TablePageScan(std::unique_ptr<File> file, SqliteDatabase& db, std::uint32_t root, std::vector<int> fields,
                std::int64_t first, std::int64_t last);

  bool giveUp() {
    gave_up_ = true;
    return false;
  }
  // Child `index` of an interior level (`cells`: the right-most one); 0 where the cell is not
  // in the page.
  std::uint32_t childAt(const Level& level, int index) const;
  // Reads page `page` into `into`: false where it is not in the file.
  bool readPage(std::uint32_t page, std::vector<std::uint8_t>& into);
  // The leaf page `page`, from a window of pages read at once (leaves that follow one another in
  // the tree mostly follow one another in the file).
  const std::uint8_t* leafPage(std::uint32_t page);
  // Goes down from `page` to a leaf, through the first child that can hold rowid `from`.
  bool descend(std::uint32_t page, std::int64_t from);
  // Moves to the next leaf; false at the end of the tree (or on giving up).
  bool nextLeaf();
  // Decodes cell `cell` of the current leaf into rowid_ and fields_.
  bool readCell(int cell);
  const Field& field(int column) const { return fields_[static_cast<std::size_t>(columns_[static_cast<std::size_t>(column)])]; }

  std::unique_ptr<File> file_;
  SqliteDatabase* db_ = nullptr;  // whose read transaction this scan holds, until it ends
  std::uint32_t root_ = 0;
  std::vector<int> columns_;  // each selected column's field in the record
  int fields_wanted_ = 0;     // fields decoded per row: up to the last selected one
  std::int64_t first_ = 0;
  std::int64_t last_ = 0;

  std::vector<Level> levels_;  // the interior pages from the root down to the current leaf's parent
  std::vector<std::uint8_t> window_;
  std::uint32_t window_first_ = 0;
  std::uint32_t window_pages_ = 0;
  const std::uint8_t* leaf_ = nullptr;
  int leaf_cells_ = 0;
  int leaf_next_ = 0;
  std::uint32_t leaf_header_ = 0;  // 100 on page 1 (the file header), else 0
  std::size_t leaf_depth_ = 0;     // interior levels above the leaves, known after the first descent
  std::uint64_t pages_visited_ = 0;
  bool started_ = false;
  bool done_ = false;
  mutable bool gave_up_ = false;  // set by a value read too

  std::int64_t rowid_ = 0;
  std::optional<std::int64_t> last_rowid_;
  std::vector<Field> fields_;
  std::vector<std::uint8_t> payload_;  // a row whose record overflows its leaf, put together
  std::vector<std::uint8_t> overflow_;  // one overflow page
};

}  // namespace ampscope::trace::db
