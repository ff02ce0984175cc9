#include "analyzer/import/nsight/foreign_strings.h"

#include <limits>

#include <fmt/format.h>

#include "base/run_beside.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {

trace::Status ForeignStrings::load(trace::db::SqliteDatabase& db, std::string_view table,
                                   std::string_view id_column, trace::StringTable& strings) {
  path_ = db.path();
  table_ = std::string(table);
  return trace::db::forEachRow(db, table, {id_column, "value"},
                               [&](std::int64_t, trace::db::Statement& s) -> trace::Status {
                                 ids_[s.int64(0)] = strings.intern(s.text(1));
                                 return {};
                               });
}

trace::Status ForeignStrings::lookup(std::string_view table, std::int64_t row,
                                     std::string_view column, std::int64_t foreign_id,
                                     trace::StringId& out) const {
  const auto found = ids_.find(foreign_id);
  if (found == ids_.end()) {
    return trace::Error{fmt::format("{}: table '{}' row {} column '{}': {} is not an id in {}",
                                    path_, table, row, column, foreign_id, table_)};
  }
  out = found->second;
  return {};
}

std::string rowPlace(std::string_view table, std::int64_t row) { return fmt::format("table '{}' row {}", table, row); }

bool intervalReadable(std::string_view table, std::int64_t row, std::int64_t start_ns, std::int64_t end_ns,
                      trace::ImportStats& stats) {
  if (end_ns >= start_ns) return true;
  stats.notUnderstood(fmt::format("table '{}' records that end before they start (left out)", table), rowPlace(table, row));
  return false;
}

std::uint64_t byteCount(std::string_view table, std::int64_t row, std::int64_t bytes, trace::ImportStats& stats) {
  if (bytes >= 0) return static_cast<std::uint64_t>(bytes);
  stats.notUnderstood(fmt::format("table '{}' negative byte counts (read as 0, the record kept)", table),
                      rowPlace(table, row));
  return 0;
}

std::uint32_t sharedMemoryBytes(std::string_view table, std::int64_t row, std::int64_t static_bytes,
                                std::int64_t dynamic_bytes, trace::ImportStats& stats) {
  constexpr std::int64_t kMax = std::numeric_limits<std::uint32_t>::max();
  if (static_bytes < 0 || dynamic_bytes < 0 || static_bytes > kMax || dynamic_bytes > kMax - static_bytes) {
    stats.notUnderstood(fmt::format("table '{}' shared memory sizes that are not a size (read as 0, the kernel kept)", table),
                        rowPlace(table, row));
    return 0;
  }
  return static_cast<std::uint32_t>(static_bytes + dynamic_bytes);
}

trace::Status readGpuAndHostAtOnce(trace::db::SqliteDatabase& db,
                                   const std::function<trace::Status(trace::db::SqliteDatabase&)>& read_gpu,
                                   const std::function<trace::Status()>& read_host) {
  auto second = trace::db::SqliteDatabase::open(db.path(), trace::db::SqliteDatabase::Mode::kReadOnly);
  if (!second) {
    if (trace::Status gpu = read_gpu(db); !gpu) return gpu;
    return read_host();
  }
  trace::Status gpu;
  // Should the host side throw, the GPU side's end is waited for as the future is destroyed.
  auto gpu_side = runBeside(true, [&] { gpu = read_gpu(*second); });
  const trace::Status host = read_host();
  gpu_side.get();
  if (!gpu) return gpu;
  return host;
}

void takeGpuRecords(trace::Trace&& gpu, trace::Trace& out) {
  out.kernels = std::move(gpu.kernels);
  out.memory_ops = std::move(gpu.memory_ops);
  out.synchronizations = std::move(gpu.synchronizations);
  out.import_stats.add(gpu.import_stats);
}

}  // namespace ampscope::analyzer::import
