#include "trace/db/profile_writer.h"

#include <cstdio>
#include <span>
#include <type_traits>

#include <fmt/format.h>

#include "trace/db/kernel_rows.h"
#include "trace/db/profile_schema.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {

namespace {

std::int64_t i64(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// Inserts rows through one prepared statement, committing every kRowsPerTransaction rows so a
// crash loses at most one batch and the WAL stays small.
template <typename Row, typename BindRow>
Status insertRows(SqliteDatabase& db, std::string_view sql, std::span<const Row> rows,
                  BindRow bindRow) {
  auto statement = db.prepare(sql);
  if (!statement) return statement.error();
  std::size_t in_transaction = 0;
  if (Status begun = db.execute("BEGIN"); !begun) return begun;
  for (const Row& row : rows) {
    // A binder may refuse a row (returning a Status) or always succeed (returning nothing).
    if constexpr (std::is_same_v<decltype(bindRow(*statement, row)), Status>) {
      if (Status bound = bindRow(*statement, row); !bound) return bound;
    } else {
      bindRow(*statement, row);
    }
    if (Status inserted = statement->run(); !inserted) return inserted;
    if (++in_transaction == ProfileWriter::kRowsPerTransaction) {
      if (Status committed = db.execute("COMMIT; BEGIN"); !committed) return committed;
      in_transaction = 0;
    }
  }
  return db.execute("COMMIT");
}

Status writeMeta(SqliteDatabase& db, const Trace& trace) {
  auto statement = db.prepare("INSERT OR REPLACE INTO ampscope_meta (key, value) VALUES (?, ?)");
  if (!statement) return statement.error();
  const std::pair<std::string, std::string> rows[] = {
      {"schema_version", fmt::format("{}.{}", kSchemaMajor, kSchemaMinor)},
      {"source_format", formatName(trace.source_format)},
      {"source_detail", trace.format_detail},
  };
  for (const auto& [key, value] : rows) {
    statement->bind(1, key);
    statement->bind(2, value);
    if (Status inserted = statement->run(); !inserted) return inserted;
  }
  return {};
}

struct StatRow {
  std::string section;
  std::string key;
  std::uint64_t value;
};

std::vector<StatRow> statRows(const ImportStats& stats) {
  std::vector<StatRow> rows = {
      {"totals", "events_read", stats.events_read},
      {"totals", "events_imported", stats.events_imported},
      {"totals", "gpu_records_without_launch", stats.gpu_records_without_launch},
      {"totals", "dropped_by_collector", stats.dropped_by_collector},
  };
  for (const auto& [key, value] : stats.skipped) rows.push_back({"skipped", key, value});
  for (const auto& [key, value] : stats.not_understood) rows.push_back({"not_understood", key, value});
  return rows;
}

}  // namespace

ProfileWriter::ProfileWriter(std::unique_ptr<SqliteDatabase> db) : db_(std::move(db)) {}
ProfileWriter::ProfileWriter(ProfileWriter&&) noexcept = default;
ProfileWriter& ProfileWriter::operator=(ProfileWriter&&) noexcept = default;
ProfileWriter::~ProfileWriter() = default;

Result<ProfileWriter> ProfileWriter::create(const std::string& path) {
  // A profile is written whole: start from an empty file rather than merging into an old one.
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  auto db = SqliteDatabase::open(path, SqliteDatabase::Mode::kCreate);
  if (!db) return db.error();
  auto owned = std::make_unique<SqliteDatabase>(std::move(db).value());
  // WAL keeps what was committed readable even if the writing process dies mid-way.
  // Large pages: fewer B-tree pages to walk when millions of rows are read back in order.
  for (const char* pragma : {"PRAGMA page_size=65536", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"}) {
    if (Status set = owned->execute(pragma); !set) return set.error();
  }
  if (Status created = owned->execute(schemaSql()); !created) return created.error();
  return ProfileWriter(std::move(owned));
}

Status ProfileWriter::write(const Trace& trace) {
  SqliteDatabase& db = *db_;
  if (Status meta = writeMeta(db, trace); !meta) return meta;

  std::vector<StringId> string_ids(trace.strings.size());
  for (std::size_t i = 0; i < string_ids.size(); ++i) string_ids[i] = static_cast<StringId>(i);
  Status status = insertRows<StringId>(
      db, "INSERT INTO strings (id, value) VALUES (?, ?)", string_ids,
      [&](Statement& s, StringId id) {
        s.bind(1, static_cast<std::int64_t>(id));
        s.bind(2, trace.str(id));
      });
  if (!status) return status;

  status = insertRows<Device>(
      db, "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?)", trace.devices,
      [](Statement& s, const Device& d) {
        s.bind(1, static_cast<std::int64_t>(d.id));
        s.bind(2, static_cast<std::int64_t>(d.name));
        s.bind(3, static_cast<std::int64_t>(d.compute_major));
        s.bind(4, static_cast<std::int64_t>(d.compute_minor));
        s.bind(5, static_cast<std::int64_t>(d.sm_count));
        s.bind(6, i64(d.total_memory_bytes));
      });
  if (!status) return status;

  std::vector<Index> thread_ids(trace.threads.size());
  for (std::size_t i = 0; i < thread_ids.size(); ++i) thread_ids[i] = static_cast<Index>(i);
  status = insertRows<Index>(db, "INSERT INTO threads VALUES (?, ?, ?, ?)", thread_ids,
                             [&](Statement& s, Index id) {
                               const Thread& t = trace.threads[static_cast<std::size_t>(id)];
                               s.bind(1, static_cast<std::int64_t>(id));
                               s.bind(2, t.pid);
                               s.bind(3, t.tid);
                               s.bind(4, static_cast<std::int64_t>(t.name));
                             });
  if (!status) return status;

  status = insertRows<LaunchCall>(
      db, "INSERT INTO launches VALUES (?, ?, ?, ?, ?, ?, ?)", trace.launches,
      [](Statement& s, const LaunchCall& l) {
        s.bind(1, l.start_ns);
        s.bind(2, l.end_ns);
        s.bind(3, i64(l.correlation_id));
        s.bind(4, static_cast<std::int64_t>(l.name));
        s.bind(5, static_cast<std::int64_t>(l.thread));
        s.bind(6, static_cast<std::int64_t>(l.cbid));
        s.bind(7, static_cast<std::int64_t>(l.api));
      });
  if (!status) return status;

  const KernelConfigTable configs = buildKernelConfigs(trace.kernels);
  std::vector<std::uint32_t> config_ids(configs.configs.size());
  for (std::size_t i = 0; i < config_ids.size(); ++i) config_ids[i] = static_cast<std::uint32_t>(i);
  status = insertRows<std::uint32_t>(
      db, "INSERT INTO kernel_configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", config_ids,
      [&](Statement& s, std::uint32_t id) {
        const KernelConfig& c = configs.configs[id];
        s.bind(1, static_cast<std::int64_t>(id));
        s.bind(2, static_cast<std::int64_t>(c.name));
        s.bind(3, static_cast<std::int64_t>(c.device));
        s.bind(4, static_cast<std::int64_t>(c.stream));
        for (int axis = 0; axis < 3; ++axis) {
          s.bind(5 + axis, static_cast<std::int64_t>(c.grid[static_cast<std::size_t>(axis)]));
          s.bind(8 + axis, static_cast<std::int64_t>(c.block[static_cast<std::size_t>(axis)]));
        }
        s.bind(11, static_cast<std::int64_t>(c.registers_per_thread));
        s.bind(12, static_cast<std::int64_t>(c.shared_memory_bytes));
      });
  if (!status) return status;
  std::size_t kernel_index = 0;
  status = insertRows<Kernel>(db, "INSERT INTO kernels VALUES (?, ?, ?, ?)", trace.kernels,
                              [&](Statement& s, const Kernel& k) {
                                s.bind(1, k.start_ns);
                                s.bind(2, k.end_ns);
                                s.bind(3, i64(k.correlation_id));
                                s.bind(4, static_cast<std::int64_t>(configs.config_of_kernel[kernel_index++]));
                              });
  if (!status) return status;

  status = insertRows<MemoryOp>(
      db, "INSERT INTO memory_ops VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", trace.memory_ops,
      [](Statement& s, const MemoryOp& m) {
        s.bind(1, m.start_ns);
        s.bind(2, m.end_ns);
        s.bind(3, i64(m.correlation_id));
        s.bind(4, i64(m.bytes));
        s.bind(5, static_cast<std::int64_t>(m.device));
        s.bind(6, static_cast<std::int64_t>(m.stream));
        s.bind(7, static_cast<std::int64_t>(m.kind));
        s.bind(8, static_cast<std::int64_t>(m.direction));
        s.bind(9, static_cast<std::int64_t>(m.src_kind));
        s.bind(10, static_cast<std::int64_t>(m.dst_kind));
      });
  if (!status) return status;

  status = insertRows<Synchronization>(
      db, "INSERT INTO synchronizations VALUES (?, ?, ?, ?, ?, ?)", trace.synchronizations,
      [](Statement& s, const Synchronization& y) {
        s.bind(1, y.start_ns);
        s.bind(2, y.end_ns);
        s.bind(3, i64(y.correlation_id));
        s.bind(4, static_cast<std::int64_t>(y.device));
        s.bind(5, static_cast<std::int64_t>(y.stream));
        s.bind(6, static_cast<std::int64_t>(y.kind));
      });
  if (!status) return status;

  status = insertRows<Range>(
      db, "INSERT INTO ranges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", trace.ranges,
      [](Statement& s, const Range& r) {
        s.bind(1, r.start_ns);
        s.bind(2, r.end_ns);
        s.bind(3, static_cast<std::int64_t>(r.name));
        s.bind(4, static_cast<std::int64_t>(r.thread));
        s.bind(5, static_cast<std::int64_t>(r.kind));
        s.bind(6, static_cast<std::int64_t>(r.phase));
        s.bind(7, static_cast<std::int64_t>(r.op));
        s.bind(8, static_cast<std::int64_t>(r.shapes));
        s.bind(9, static_cast<std::int64_t>(r.dtypes));
        s.bind(10, static_cast<std::int64_t>(r.layer));
        s.bind(11, r.sequence_number);
        s.bind(12, r.fwd_thread_tid);
      });
  if (!status) return status;

  status = insertRows<Counter>(db, "INSERT INTO counters VALUES (?, ?, ?, ?)", trace.counters,
                               [](Statement& s, const Counter& c) {
                                 s.bind(1, c.time_ns);
                                 s.bind(2, static_cast<std::int64_t>(c.name));
                                 s.bind(3, c.step);
                                 s.bind(4, c.value);
                               });
  if (!status) return status;

  const std::vector<StatRow> stats = statRows(trace.import_stats);
  status = insertRows<StatRow>(db, "INSERT INTO import_stats VALUES (?, ?, ?)", stats,
                               [](Statement& s, const StatRow& row) {
                                 s.bind(1, row.section);
                                 s.bind(2, row.key);
                                 s.bind(3, i64(row.value));
                               });
  if (!status) return status;
  // Complete: fold the write-ahead log into the file so the profile is one self-contained file.
  return db.execute("PRAGMA journal_mode=DELETE");
}

Status writeProfile(const std::string& path, const Trace& trace) {
  auto writer = ProfileWriter::create(path);
  if (!writer) return writer.error();
  return writer->write(trace);
}

}  // namespace ampscope::trace::db
