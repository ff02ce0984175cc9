#include "trace/db/profile_appender.h"

#include <cstdio>

#include <fmt/format.h>

#include "trace/db/profile_schema.h"

namespace ampscope::trace::db {

namespace {

std::int64_t i64(std::uint64_t value) { return static_cast<std::int64_t>(value); }
template <typename T>
std::int64_t id(T value) {
  return static_cast<std::int64_t>(value);
}

}  // namespace

// One prepared insert per table, in this order.
enum ProfileAppender::Insert : std::size_t {
  kMeta, kString, kDevice, kThread, kLaunch, kConfig, kKernel, kMemoryOp, kSync, kRange, kCounter,
  kGradientBin, kStat, kKernels
};

namespace {

std::string multiRowKernelInsert() {
  std::string sql = "INSERT INTO kernels VALUES (?, ?, ?, ?)";
  for (std::size_t i = 1; i < ProfileAppender::kKernelsPerInsert; ++i) sql += ", (?, ?, ?, ?)";
  return sql;
}

}  // namespace

Result<ProfileAppender> ProfileAppender::create(SqliteDatabase& db) {
  static constexpr std::string_view kInserts[] = {
      "INSERT OR REPLACE INTO ampscope_meta (key, value) VALUES (?, ?)",
      "INSERT INTO strings (id, value) VALUES (?, ?)",
      "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO threads VALUES (?, ?, ?, ?)",
      "INSERT INTO launches VALUES (?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO kernel_configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO kernels VALUES (?, ?, ?, ?)",
      "INSERT INTO memory_ops VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO synchronizations VALUES (?, ?, ?, ?, ?, ?)",
      "INSERT INTO ranges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO counters VALUES (?, ?, ?, ?)",
      "INSERT INTO gradient_bins VALUES (?, ?, ?, ?, ?)",
      "INSERT OR REPLACE INTO import_stats VALUES (?, ?, ?)",
  };
  std::vector<Statement> statements;
  static const std::string kKernelsInsert = multiRowKernelInsert();
  std::vector<std::string_view> inserts(std::begin(kInserts), std::end(kInserts));
  inserts.push_back(kKernelsInsert);
  for (std::string_view sql : inserts) {
    auto prepared = db.prepare(sql);
    if (!prepared) return prepared.error();
    statements.push_back(std::move(prepared).value());
  }
  return ProfileAppender(db, std::move(statements));
}

ProfileAppender::ProfileAppender(SqliteDatabase& db, std::vector<Statement> statements)
    : db_(&db), statements_(std::move(statements)) {}
ProfileAppender::ProfileAppender(ProfileAppender&&) noexcept = default;
ProfileAppender& ProfileAppender::operator=(ProfileAppender&&) noexcept = default;
ProfileAppender::~ProfileAppender() = default;

Status ProfileAppender::begin() { return db_->execute("BEGIN"); }
Status ProfileAppender::commit() {
  if (Status flushed = flushKernels(); !flushed) return flushed;
  return db_->execute("COMMIT");
}

Status ProfileAppender::flushKernels() {
  const bool full = pending_kernels_.size() == kKernelsPerInsert;
  Statement& s = full ? statements_[kKernels] : statements_[kKernel];
  for (std::size_t i = 0; i < pending_kernels_.size(); ++i) {
    const KernelRow& row = pending_kernels_[i];
    const int base = full ? static_cast<int>(4 * i) : 0;
    s.bind(base + 1, row.start_ns);
    s.bind(base + 2, row.end_ns);
    s.bind(base + 3, row.correlation_id);
    s.bind(base + 4, row.config_id);
    if (!full) {
      if (Status inserted = s.run(); !inserted) return inserted;
    }
  }
  Status status = full ? s.run() : Status{};
  pending_kernels_.clear();
  return status;
}

Status ProfileAppender::meta(std::string_view key, std::string_view value) {
  Statement& s = statements_[kMeta];
  s.bind(1, key);
  s.bind(2, value);
  return s.run();
}

Status ProfileAppender::string(StringId string_id, std::string_view text) {
  Statement& s = statements_[kString];
  s.bind(1, id(string_id));
  s.bind(2, text);
  return s.run();
}

Status ProfileAppender::device(const Device& d) {
  Statement& s = statements_[kDevice];
  s.bind(1, id(d.id));
  s.bind(2, id(d.name));
  s.bind(3, id(d.compute_major));
  s.bind(4, id(d.compute_minor));
  s.bind(5, id(d.sm_count));
  s.bind(6, i64(d.total_memory_bytes));
  s.bind(7, id(d.kind));
  return s.run();
}

Status ProfileAppender::thread(Index thread_id, const Thread& t) {
  Statement& s = statements_[kThread];
  s.bind(1, id(thread_id));
  s.bind(2, t.pid);
  s.bind(3, t.tid);
  s.bind(4, id(t.name));
  return s.run();
}

Status ProfileAppender::launch(const LaunchCall& l) {
  Statement& s = statements_[kLaunch];
  s.bind(1, l.start_ns);
  s.bind(2, l.end_ns);
  s.bind(3, i64(l.correlation_id));
  s.bind(4, id(l.name));
  s.bind(5, id(l.thread));
  s.bind(6, id(l.cbid));
  s.bind(7, id(l.api));
  return s.run();
}

Status ProfileAppender::kernel(const Kernel& k) {
  const KernelConfig config = configOf(k);
  auto [found, inserted] = configs_.try_emplace(config, static_cast<std::uint32_t>(configs_.size()));
  if (inserted) {
    Statement& c = statements_[kConfig];
    c.bind(1, id(found->second));
    c.bind(2, id(config.name));
    c.bind(3, id(config.device));
    c.bind(4, id(config.stream));
    for (int axis = 0; axis < 3; ++axis) {
      c.bind(5 + axis, id(config.grid[static_cast<std::size_t>(axis)]));
      c.bind(8 + axis, id(config.block[static_cast<std::size_t>(axis)]));
    }
    c.bind(11, id(config.registers_per_thread));
    c.bind(12, id(config.shared_memory_bytes));
    if (Status stored = c.run(); !stored) {
      configs_.erase(found);
      return stored;
    }
  }
  pending_kernels_.push_back({k.start_ns, k.end_ns, i64(k.correlation_id), id(found->second)});
  return pending_kernels_.size() == kKernelsPerInsert ? flushKernels() : Status{};
}

Status ProfileAppender::memoryOp(const MemoryOp& m) {
  Statement& s = statements_[kMemoryOp];
  s.bind(1, m.start_ns);
  s.bind(2, m.end_ns);
  s.bind(3, i64(m.correlation_id));
  s.bind(4, i64(m.bytes));
  s.bind(5, id(m.device));
  s.bind(6, id(m.stream));
  s.bind(7, id(m.kind));
  s.bind(8, id(m.direction));
  s.bind(9, id(m.src_kind));
  s.bind(10, id(m.dst_kind));
  return s.run();
}

Status ProfileAppender::synchronization(const Synchronization& y) {
  Statement& s = statements_[kSync];
  s.bind(1, y.start_ns);
  s.bind(2, y.end_ns);
  s.bind(3, i64(y.correlation_id));
  s.bind(4, id(y.device));
  s.bind(5, id(y.stream));
  s.bind(6, id(y.kind));
  return s.run();
}

Status ProfileAppender::range(const Range& r) {
  Statement& s = statements_[kRange];
  s.bind(1, r.start_ns);
  s.bind(2, r.end_ns);
  s.bind(3, id(r.name));
  s.bind(4, id(r.thread));
  s.bind(5, id(r.kind));
  s.bind(6, id(r.phase));
  s.bind(7, id(r.op));
  s.bind(8, id(r.shapes));
  s.bind(9, id(r.dtypes));
  s.bind(10, id(r.layer));
  s.bind(11, r.sequence_number);
  s.bind(12, r.fwd_thread_tid);
  s.bind(13, id(r.domain));
  s.bind(14, id(r.category));
  s.bind(15, id(r.payload));
  return s.run();
}

Status ProfileAppender::counter(const Counter& c) {
  Statement& s = statements_[kCounter];
  s.bind(1, c.time_ns);
  s.bind(2, id(c.name));
  s.bind(3, c.step);
  s.bind(4, c.value);
  return s.run();
}

Status ProfileAppender::gradientBin(const GradientBin& b) {
  Statement& s = statements_[kGradientBin];
  s.bind(1, b.step);
  s.bind(2, b.time_ns);
  s.bind(3, id(b.tensor));
  s.bind(4, id(b.exponent));
  s.bind(5, i64(b.count));
  return s.run();
}

Status ProfileAppender::stat(std::string_view section, std::string_view key, std::uint64_t value) {
  Statement& s = statements_[kStat];
  s.bind(1, section);
  s.bind(2, key);
  s.bind(3, i64(value));
  return s.run();
}

Result<SqliteDatabase> createProfileDatabase(const std::string& path) {
  // A profile is written whole: start from an empty file rather than merging into an old one.
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  auto db = SqliteDatabase::open(path, SqliteDatabase::Mode::kCreate);
  if (!db) return db.error();
  // WAL keeps what was committed readable even if the writing process dies mid-way.
  // Large pages: fewer B-tree pages to walk when millions of rows are read back in order.
  for (const char* pragma : {"PRAGMA page_size=65536", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"}) {
    if (Status set = db->execute(pragma); !set) return set.error();
  }
  if (Status created = db->execute(schemaSql()); !created) return created.error();
  const std::string version = fmt::format("{}.{}", kSchemaMajor, kSchemaMinor);
  auto statement = db->prepare("INSERT INTO ampscope_meta (key, value) VALUES ('schema_version', ?)");
  if (!statement) return statement.error();
  statement->bind(1, version);
  if (Status stored = statement->run(); !stored) return stored.error();
  return db;
}

std::vector<StatRow> statRows(const ImportStats& stats) {
  std::vector<StatRow> rows = {
      {"totals", "events_read", stats.events_read},
      {"totals", "events_imported", stats.events_imported},
      {"totals", "gpu_records_without_launch", stats.gpu_records_without_launch},
      {"totals", "dropped_by_collector", stats.dropped_by_collector},
  };
  for (const auto& [key, value] : stats.skipped) rows.push_back({"skipped", key, value});
  for (const auto& [key, value] : stats.not_understood) rows.push_back({"not_understood", key, value});
  for (const auto& [key, value] : stats.lost) rows.push_back({"lost", key, value});
  return rows;
}

}  // namespace ampscope::trace::db
