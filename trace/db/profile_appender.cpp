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

// One prepared single-row insert per table, in this order.
enum ProfileAppender::Insert : std::size_t {
  kMeta, kString, kDevice, kThread, kConfig, kCounter, kStat, kMetricSample, kKernelMetrics, kKernelMetricValue
};

// The batched tables, in this order, with their column counts.
enum ProfileAppender::Batched : std::size_t { kLaunches, kKernels, kMemoryOps, kSyncs, kRanges, kGradientBins, kMemoryEvents };

namespace {

struct BatchedTable {
  std::string_view name;
  std::size_t columns;
};
constexpr BatchedTable kBatchedTables[] = {{"launches", 7}, {"kernels", 4}, {"memory_ops", 11},
                                           {"synchronizations", 7}, {"ranges", 20}, {"gradient_bins", 5},
                                           {"memory_events", 9}};

}  // namespace

Result<ProfileAppender> ProfileAppender::create(SqliteDatabase& db) {
  static constexpr std::string_view kInserts[] = {
      "INSERT OR REPLACE INTO ampscope_meta (key, value) VALUES (?, ?)",
      "INSERT INTO strings (id, value) VALUES (?, ?)",
      "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO threads VALUES (?, ?, ?, ?)",
      "INSERT INTO kernel_configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO counters VALUES (?, ?, ?, ?)",
      "INSERT OR REPLACE INTO import_stats (section, key, value, place) VALUES (?, ?, ?, ?)",
      // Hardware metrics carry REAL values, which BatchedInsert (integers only) does not take.
      "INSERT INTO metric_samples VALUES (?, ?, ?, ?, ?)",
      "INSERT INTO kernel_metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      "INSERT INTO kernel_metric_values VALUES (?, ?, ?)",
  };
  std::vector<Statement> statements;
  for (std::string_view sql : kInserts) {
    auto prepared = db.prepare(sql);
    if (!prepared) return prepared.error();
    statements.push_back(std::move(prepared).value());
  }
  std::vector<BatchedInsert> batched;
  for (const BatchedTable& table : kBatchedTables) {
    auto prepared = BatchedInsert::prepare(db, table.name, table.columns);
    if (!prepared) return prepared.error();
    batched.push_back(std::move(prepared).value());
  }
  return ProfileAppender(db, std::move(statements), std::move(batched));
}

ProfileAppender::ProfileAppender(SqliteDatabase& db, std::vector<Statement> statements, std::vector<BatchedInsert> batched)
    : db_(&db), statements_(std::move(statements)), batched_(std::move(batched)) {}
ProfileAppender::ProfileAppender(ProfileAppender&&) noexcept = default;
ProfileAppender& ProfileAppender::operator=(ProfileAppender&&) noexcept = default;
ProfileAppender::~ProfileAppender() = default;

Status ProfileAppender::begin() { return db_->execute("BEGIN"); }
Status ProfileAppender::commit() {
  for (BatchedInsert& table : batched_) {
    if (Status flushed = table.flush(); !flushed) return flushed;
  }
  return db_->execute("COMMIT");
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
  s.bind(8, d.sm_clock_khz);
  s.bind(9, i64(d.memory_bandwidth_bytes_per_s));
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
  return batched_[kLaunches].add(std::array<std::int64_t, 7>{l.start_ns, l.end_ns, i64(l.correlation_id), id(l.name),
                                                              id(l.thread), id(l.cbid), id(l.api)});
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
    c.bind(13, config.pid);
    if (Status stored = c.run(); !stored) {
      configs_.erase(found);
      return stored;
    }
  }
  return batched_[kKernels].add(std::array<std::int64_t, 4>{k.start_ns, k.end_ns, i64(k.correlation_id), id(found->second)});
}

Status ProfileAppender::memoryOp(const MemoryOp& m) {
  return batched_[kMemoryOps].add(std::array<std::int64_t, 11>{m.start_ns, m.end_ns, i64(m.correlation_id), i64(m.bytes),
                                                                id(m.device), id(m.stream), id(m.kind), id(m.direction),
                                                                id(m.src_kind), id(m.dst_kind), m.pid});
}

Status ProfileAppender::synchronization(const Synchronization& y) {
  return batched_[kSyncs].add(
      std::array<std::int64_t, 7>{y.start_ns, y.end_ns, i64(y.correlation_id), id(y.device), id(y.stream), id(y.kind), y.pid});
}

Status ProfileAppender::range(const Range& r) {
  return batched_[kRanges].add(std::array<std::int64_t, 20>{
      r.start_ns, r.end_ns, id(r.name), id(r.thread), id(r.kind), id(r.phase), id(r.op), id(r.shapes), id(r.dtypes),
      id(r.layer), r.sequence_number, r.fwd_thread_tid, id(r.domain), id(r.category), id(r.payload),
      id(r.text_form), id(r.module_path), r.op_id, id(r.arguments), id(r.strides)});
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
  return batched_[kGradientBins].add(
      std::array<std::int64_t, 5>{b.step, b.time_ns, id(b.tensor), id(b.exponent), i64(b.count)});
}

Status ProfileAppender::memoryEvent(const MemoryEvent& m) {
  // The address is stored as the same 64 bits, signed: SQLite integers are.
  return batched_[kMemoryEvents].add(std::array<std::int64_t, 9>{m.time_ns, m.bytes, i64(m.address), m.total_allocated,
                                                                  m.total_reserved, id(m.device_kind), id(m.device),
                                                                  id(m.thread), m.pid});
}

Status ProfileAppender::metricSample(const MetricSample& m) {
  Statement& s = statements_[kMetricSample];
  s.bind(1, m.start_ns);
  s.bind(2, m.end_ns);
  s.bind(3, id(m.device));
  s.bind(4, id(m.metric));
  s.bind(5, m.value);
  return s.run();
}

Status ProfileAppender::kernelMetrics(const KernelMetrics& k) {
  const std::int64_t range_id = next_kernel_metrics_id_;
  Statement& s = statements_[kKernelMetrics];
  s.bind(1, range_id);
  s.bind(2, k.start_ns);
  s.bind(3, k.end_ns);
  s.bind(4, id(k.kernel_name));
  s.bind(5, i64(k.correlation_id));
  s.bind(6, id(k.device));
  s.bind(7, k.pid);
  s.bind(8, std::int64_t{k.times_measured ? 1 : 0});
  if (Status stored = s.run(); !stored) return stored;
  ++next_kernel_metrics_id_;
  Statement& v = statements_[kKernelMetricValue];
  for (const MetricValue& value : k.values) {
    v.bind(1, range_id);
    v.bind(2, id(value.metric));
    v.bind(3, value.value);
    if (Status stored = v.run(); !stored) return stored;
  }
  return {};
}

Status ProfileAppender::stat(std::string_view section, std::string_view key, std::uint64_t value,
                             std::string_view place) {
  Statement& s = statements_[kStat];
  s.bind(1, section);
  s.bind(2, key);
  s.bind(3, i64(value));
  s.bind(4, place);
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
      {"totals", "events_read", stats.events_read, {}},
      {"totals", "events_imported", stats.events_imported, {}},
      {"totals", "gpu_records_without_launch", stats.gpu_records_without_launch, {}},
      {"totals", "dropped_by_collector", stats.dropped_by_collector, {}},
  };
  for (const auto& [key, value] : stats.skipped) rows.push_back({"skipped", key, value, {}});
  for (const auto& [key, value] : stats.not_understood) {
    const auto place = stats.first_place.find(key);
    rows.push_back({"not_understood", key, value, place == stats.first_place.end() ? std::string() : place->second});
  }
  for (const auto& [key, value] : stats.lost) rows.push_back({"lost", key, value, {}});
  return rows;
}

}  // namespace ampscope::trace::db
