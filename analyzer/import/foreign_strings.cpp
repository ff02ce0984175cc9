#include "analyzer/import/foreign_strings.h"

#include <limits>
#include <thread>

#include <fmt/format.h>

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

trace::Status checkInterval(const std::string& path, std::string_view table, std::int64_t row,
                            std::int64_t start_ns, std::int64_t end_ns) {
  if (end_ns >= start_ns) return {};
  return trace::Error{fmt::format("{}: table '{}' row {}: end {} is before start {}", path, table,
                                  row, end_ns, start_ns)};
}

trace::Status sharedMemoryBytes(const std::string& path, std::string_view table, std::int64_t row,
                                std::int64_t static_bytes, std::int64_t dynamic_bytes, std::uint32_t& out) {
  constexpr std::int64_t kMax = std::numeric_limits<std::uint32_t>::max();
  if (static_bytes < 0 || dynamic_bytes < 0 || static_bytes > kMax || dynamic_bytes > kMax - static_bytes) {
    return trace::Error{fmt::format("{}: table '{}' row {}: shared memory {} + {} bytes is not a size", path,
                                    table, row, static_bytes, dynamic_bytes)};
  }
  out = static_cast<std::uint32_t>(static_bytes + dynamic_bytes);
  return {};
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
  std::thread gpu_thread([&] { gpu = read_gpu(*second); });
  trace::Status host = read_host();
  gpu_thread.join();
  if (!gpu) return gpu;
  return host;
}

void takeGpuRecords(trace::Trace&& gpu, trace::Trace& out) {
  out.kernels = std::move(gpu.kernels);
  out.memory_ops = std::move(gpu.memory_ops);
  out.synchronizations = std::move(gpu.synchronizations);
  out.import_stats.events_read += gpu.import_stats.events_read;
  out.import_stats.events_imported += gpu.import_stats.events_imported;
}

}  // namespace ampscope::analyzer::import
