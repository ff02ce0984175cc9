#include "trace/db/table_page_scan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {

namespace {

// Page types of a table b-tree (fileformat2.html, "B-tree Pages").
constexpr std::uint8_t kInteriorTablePage = 0x05;
constexpr std::uint8_t kLeafTablePage = 0x0D;
constexpr std::uint32_t kFileHeaderBytes = 100;  // page 1 starts with the file header
// Far deeper than any tree of 2^64 rows: a deeper descent means pages that point back up.
constexpr std::size_t kMaxDepth = 40;
// Leaves read by one pread at most, where they follow one another in the file (256 KiB of 4 KiB
// pages): few system calls, little memory.
constexpr std::uint32_t kWindowPages = 64;

std::uint32_t u16(const std::uint8_t* p) { return (std::uint32_t{p[0]} << 8) | p[1]; }
std::uint32_t u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// A varint of at most 9 bytes that ends before `end`; false where it does not.
inline bool readVarint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& value) {
  if (p < end && *p < 0x80) {  // one byte: most serial types and small numbers
    value = *p++;
    return true;
  }
  value = 0;
  for (int i = 0; i < 8; ++i) {
    if (p >= end) return false;
    const std::uint8_t byte = *p++;
    value = (value << 7) | (byte & 0x7Fu);
    if ((byte & 0x80u) == 0) return true;
  }
  if (p >= end) return false;
  value = (value << 8) | *p++;
  return true;
}

// The bytes a value of serial type `type` takes in the record; false for the reserved types.
bool serialSize(std::uint64_t type, std::uint64_t& bytes) {
  static constexpr std::uint8_t kFixed[10] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  if (type < 10) {
    bytes = kFixed[type];
    return true;
  }
  if (type < 12) return false;
  bytes = (type - 12) / 2;
  return true;
}

}  // namespace

struct TablePageScan::File {
  int fd = -1;
  std::uint32_t page_size = 0;
  std::uint32_t usable = 0;  // the page less the bytes reserved at its end
  std::uint32_t pages = 0;

  ~File() {
    if (fd >= 0) close(fd);
  }

  // The file's header says how to read its pages; nullptr where this reader does not handle it.
  static std::unique_ptr<File> open(const std::string& path) {
    auto file = std::make_unique<File>();
    file->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file->fd < 0) return nullptr;
    std::uint8_t header[kFileHeaderBytes];
    if (pread(file->fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return nullptr;
    if (std::memcmp(header, "SQLite format 3", 16) != 0) return nullptr;
    const std::uint32_t size = u16(header + 16) == 1 ? 65536 : u16(header + 16);
    if (size < 512 || size > 65536 || (size & (size - 1)) != 0) return nullptr;
    // Versions 1: a rollback journal (2 is a write-ahead log, whose pages the file lacks).
    if (header[18] != 1 || header[19] != 1) return nullptr;
    // UTF-8: the text SQLite's column functions give is then the bytes stored.
    if (u32(header + 56) != 1) return nullptr;
    file->page_size = size;
    file->usable = size - header[20];
    if (file->usable < 480) return nullptr;
    struct stat st {};
    if (fstat(file->fd, &st) != 0) return nullptr;
    const auto pages = static_cast<std::uint64_t>(st.st_size) / size;
    file->pages = static_cast<std::uint32_t>(std::min<std::uint64_t>(pages, std::numeric_limits<std::uint32_t>::max()));
    return file;
  }

  // Reads `count` pages from page `first` into `into`; the pages read (0: none).
  std::uint32_t read(std::uint32_t first, std::uint32_t count, std::uint8_t* into) const {
    if (first == 0 || first > pages) return 0;
    count = std::min(count, pages - first + 1);
    const std::size_t bytes = std::size_t{count} * page_size;
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = pread(fd, into + done, bytes - done, static_cast<off_t>((std::uint64_t{first} - 1) * page_size + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += static_cast<std::size_t>(got);
    }
    return static_cast<std::uint32_t>(done / page_size);
  }
};

namespace {

// The table's root page and each column's field in its records, or nullopt where the scan does
// not read the table: a table with generated columns stores fewer fields than it declares; a
// primary key column may be the rowid, stored as NULL; a default stands in for the field that
// rows written before an ALTER TABLE lack. Those tables are SQLite's to read.
std::optional<std::pair<std::int64_t, std::vector<int>>> tableLayout(SqliteDatabase& db, std::string_view table,
                                                                     const std::vector<std::string_view>& columns) {
  auto root = db.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE");
  if (!root) return std::nullopt;
  root->bind(1, table);
  if (!root->step()) return std::nullopt;
  const std::int64_t root_page = root->int64(0);
  auto info = db.prepare("SELECT cid, name, dflt_value IS NULL, pk, hidden FROM pragma_table_xinfo(?1)");
  if (!info) return std::nullopt;
  info->bind(1, table);
  const auto sameName = [](std::string_view a, std::string_view b) {  // SQLite's names ignore ASCII case
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  std::vector<int> fields(columns.size(), -1);
  while (info->step()) {
    if (info->int64(4) != 0) return std::nullopt;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (fields[i] >= 0 || !sameName(info->text(1), columns[i])) continue;
      if (info->int64(2) == 0 || info->int64(3) != 0) return std::nullopt;
      fields[i] = static_cast<int>(info->int64(0));
    }
  }
  if (!info->ok() || std::find(fields.begin(), fields.end(), -1) != fields.end()) return std::nullopt;
  return std::make_pair(root_page, std::move(fields));
}

}  // namespace

std::optional<TablePageScan> TablePageScan::open(SqliteDatabase& db, std::string_view table,
                                                 const std::vector<std::string_view>& columns, std::int64_t first,
                                                 std::int64_t last) {
  std::unique_ptr<File> file = File::open(db.path());
  if (!file) return std::nullopt;
  // The read transaction holds SQLite's shared lock until the scan ends: no writer changes a
  // page meanwhile, and a hot journal (pages half written) fails here, not in the scan.
  if (!db.execute("BEGIN")) return std::nullopt;
  auto layout = tableLayout(db, table, columns);
  // A virtual table has no root page.
  if (!layout || layout->first < 1 || layout->first > file->pages) {
    (void)db.execute("COMMIT");
    return std::nullopt;
  }
  return TablePageScan(std::move(file), db, static_cast<std::uint32_t>(layout->first), std::move(layout->second), first,
                       last);
}

TablePageScan::TablePageScan(std::unique_ptr<File> file, SqliteDatabase& db, std::uint32_t root, std::vector<int> fields,
                             std::int64_t first, std::int64_t last)
    : file_(std::move(file)), db_(&db), root_(root), columns_(std::move(fields)), first_(first), last_(last) {
  for (const int field : columns_) fields_wanted_ = std::max(fields_wanted_, field + 1);
  fields_.resize(static_cast<std::size_t>(fields_wanted_));
}

TablePageScan::TablePageScan(TablePageScan&& other) noexcept
    : file_(std::move(other.file_)), db_(other.db_), root_(other.root_), columns_(std::move(other.columns_)),
      fields_wanted_(other.fields_wanted_), first_(other.first_), last_(other.last_), levels_(std::move(other.levels_)),
      window_(std::move(other.window_)), window_first_(other.window_first_), window_pages_(other.window_pages_),
      leaf_(other.leaf_), leaf_cells_(other.leaf_cells_), leaf_next_(other.leaf_next_), leaf_header_(other.leaf_header_),
      leaf_depth_(other.leaf_depth_), pages_visited_(other.pages_visited_), started_(other.started_), done_(other.done_), gave_up_(other.gave_up_), rowid_(other.rowid_),
      last_rowid_(other.last_rowid_), fields_(std::move(other.fields_)), payload_(std::move(other.payload_)),
      overflow_(std::move(other.overflow_)) {
  other.db_ = nullptr;
  other.leaf_ = nullptr;
}

TablePageScan::~TablePageScan() {
  if (db_ != nullptr) (void)db_->execute("COMMIT");
}

bool TablePageScan::readPage(std::uint32_t page, std::vector<std::uint8_t>& into) {
  into.resize(file_->page_size);
  return file_->read(page, 1, into.data()) == 1;
}

const std::uint8_t* TablePageScan::leafPage(std::uint32_t page) {
  if (page >= window_first_ && page - window_first_ < window_pages_) {
    return window_.data() + std::size_t{page - window_first_} * file_->page_size;
  }
  // The leaves after this one under the same parent, as long as they follow it in the file.
  std::uint32_t run = 1;
  if (!levels_.empty()) {
    const Level& parent = levels_.back();
    const std::uint8_t* cells = parent.bytes.data() + (parent.page == 1 ? kFileHeaderBytes : 0) + 12;
    for (int next = parent.next + 1; run < kWindowPages && next < parent.cells; ++next, ++run) {
      const std::uint32_t at = u16(cells + 2 * next);
      if (at + 4 > file_->usable || u32(parent.bytes.data() + at) != page + run) break;
    }
  }
  window_.resize(std::size_t{run} * file_->page_size);
  window_first_ = page;
  window_pages_ = file_->read(page, run, window_.data());
  return window_pages_ == 0 ? nullptr : window_.data();
}

bool TablePageScan::descend(std::uint32_t page, std::int64_t from) {
  // The children of the deepest interior level are leaves (a b-tree's leaves are all as deep).
  while (true) {
    // A tree visits each of its pages once: more visits mean pages that point at each other.
    if (levels_.size() > kMaxDepth || ++pages_visited_ > file_->pages) return giveUp();
    const bool first_descent = leaf_ == nullptr && !started_;
    const std::uint8_t* bytes = nullptr;
    Level level;
    if (first_descent || levels_.size() < leaf_depth_) {
      if (!readPage(page, level.bytes)) return giveUp();
      bytes = level.bytes.data();
    } else {
      bytes = leafPage(page);
      if (bytes == nullptr) return giveUp();
    }
    const std::uint32_t header = page == 1 ? kFileHeaderBytes : 0;
    const std::uint8_t type = bytes[header];
    const int cells = static_cast<int>(u16(bytes + header + 3));
    if (type == kLeafTablePage) {
      if (!first_descent && levels_.size() != leaf_depth_) return giveUp();
      if (header + 8 + 2u * static_cast<std::uint32_t>(cells) > file_->usable) return giveUp();
      if (first_descent) {
        // The first leaf was read as a page of its own: it becomes the window.
        window_ = std::move(level.bytes);
        window_first_ = page;
        window_pages_ = 1;
        bytes = window_.data();
        leaf_depth_ = levels_.size();
      }
      leaf_ = bytes;
      leaf_header_ = header;
      leaf_cells_ = cells;
      leaf_next_ = 0;
      return true;
    }
    if (type != kInteriorTablePage || (!first_descent && levels_.size() >= leaf_depth_)) return giveUp();
    if (header + 12 + 2u * static_cast<std::uint32_t>(cells) > file_->usable) return giveUp();
    // The first child whose keys reach `from` (a child holds the rowids up to its key).
    int next = 0;
    for (; next < cells; ++next) {
      const std::uint32_t at = u16(bytes + header + 12 + 2 * next);
      if (at + 4 >= file_->usable) return giveUp();
      const std::uint8_t* key_at = bytes + at + 4;
      std::uint64_t key = 0;
      if (!readVarint(key_at, bytes + file_->usable, key)) return giveUp();
      if (static_cast<std::int64_t>(key) >= from) break;
    }
    level.page = page;
    level.cells = cells;
    level.next = next;
    levels_.push_back(std::move(level));
    page = childAt(levels_.back(), next);
    if (page == 0) return giveUp();
  }
}

std::uint32_t TablePageScan::childAt(const Level& level, int index) const {
  const std::uint32_t header = level.page == 1 ? kFileHeaderBytes : 0;
  const std::uint8_t* bytes = level.bytes.data();
  if (index == level.cells) return u32(bytes + header + 8);  // the right-most child
  const std::uint32_t at = u16(bytes + header + 12 + 2 * index);
  if (at + 4 > file_->usable) return 0;
  return u32(bytes + at);
}

bool TablePageScan::nextLeaf() {
  while (!levels_.empty()) {
    Level& level = levels_.back();
    if (++level.next > level.cells) {
      levels_.pop_back();
      continue;
    }
    const std::uint32_t child = childAt(level, level.next);
    if (child == 0) return giveUp();
    return descend(child, std::numeric_limits<std::int64_t>::min());
  }
  done_ = true;
  return false;
}

bool TablePageScan::readCell(int cell) {
  const std::uint32_t usable = file_->usable;
  const std::uint32_t at = u16(leaf_ + leaf_header_ + 8 + 2 * cell);
  if (at < leaf_header_ + 8 || at >= usable) return false;
  const std::uint8_t* p = leaf_ + at;
  const std::uint8_t* const page_end = leaf_ + usable;
  std::uint64_t payload = 0;
  std::uint64_t rowid = 0;
  if (!readVarint(p, page_end, payload) || !readVarint(p, page_end, rowid)) return false;
  rowid_ = static_cast<std::int64_t>(rowid);
  if (last_rowid_ && rowid_ <= *last_rowid_) return false;  // rowids go up, or the pages are not one tree
  last_rowid_ = rowid_;
  // How much of the record the leaf holds, the rest in a chain of overflow pages
  // (fileformat2.html, "Cell Payload Overflow Pages").
  const std::uint64_t max_local = usable - 35;
  std::uint64_t local = payload;
  if (payload > max_local) {
    const std::uint64_t min_local = (std::uint64_t{usable} - 12) * 32 / 255 - 23;
    const std::uint64_t k = min_local + (payload - min_local) % (usable - 4);
    local = k <= max_local ? k : min_local;
  }
  if (static_cast<std::uint64_t>(page_end - p) < local) return false;
  const std::uint8_t* record = p;
  if (local < payload) {
    // No record is longer than the file's pages hold (nor than SQLite's 2^31 - 1 bytes).
    if (payload > std::uint64_t{file_->pages} * usable || payload > std::numeric_limits<std::int32_t>::max()) return false;
    if (static_cast<std::uint64_t>(page_end - p) < local + 4) return false;
    payload_.resize(payload);
    std::memcpy(payload_.data(), p, local);
    std::uint64_t filled = local;
    std::uint32_t next = u32(p + local);
    std::vector<std::uint8_t>& page = overflow_;
    while (filled < payload) {
      if (!readPage(next, page)) return false;
      const std::uint64_t take = std::min<std::uint64_t>(payload - filled, usable - 4);
      std::memcpy(payload_.data() + filled, page.data() + 4, take);
      filled += take;
      next = u32(page.data());
    }
    record = payload_.data();
  }
  const std::uint8_t* const record_end = record + payload;
  const std::uint8_t* types = record;
  std::uint64_t header_bytes = 0;
  if (!readVarint(types, record_end, header_bytes) || header_bytes > payload) return false;
  const std::uint8_t* const types_end = record + header_bytes;
  const std::uint8_t* body = types_end;
  for (Field& field : fields_) {
    if (types >= types_end) {
      field = {};  // a field the row lacks: NULL (no selected column has a default)
      continue;
    }
    std::uint64_t type = 0;
    std::uint64_t bytes = 0;
    if (!readVarint(types, types_end, type) || !serialSize(type, bytes)) return false;
    if (bytes > static_cast<std::uint64_t>(record_end - body)) return false;
    field = {.type = type, .bytes = body};
    body += bytes;
  }
  return true;
}

bool TablePageScan::step() {
  if (done_ || gave_up_) return false;
  if (!started_) {
    if (!descend(root_, first_)) return false;
    started_ = true;
  }
  while (true) {
    while (leaf_next_ >= leaf_cells_) {
      if (!nextLeaf()) return false;
    }
    if (!readCell(leaf_next_++)) return giveUp();
    if (rowid_ < first_) continue;
    if (rowid_ > last_) {
      done_ = true;
      return false;
    }
    return true;
  }
}

}  // namespace ampscope::trace::db
