#include "trace/db/kernel_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {

namespace {

// Below this many rows a second connection costs more than it saves.
constexpr std::int64_t kRowsForTwoReaders = 200000;

struct KernelConfigHash {
  std::size_t operator()(const KernelConfig& c) const {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the fields
    const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
    mix(c.name);
    mix(c.device);
    mix(c.stream);
    for (std::uint32_t v : c.grid) mix(v);
    for (std::uint32_t v : c.block) mix(v);
    mix(c.registers_per_thread);
    mix(c.shared_memory_bytes);
    return static_cast<std::size_t>(h);
  }
};

Result<std::vector<KernelConfig>> readConfigs(SqliteDatabase& db, const Trace& trace) {
  std::vector<KernelConfig> configs;
  const auto string_count = static_cast<std::int64_t>(trace.strings.size());
  Status status = forEachRow(
      db, "kernel_configs",
      {"id", "name_id", "device", "stream", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
       "block_z", "registers_per_thread", "shared_memory_bytes"},
      [&](std::int64_t row, Statement& s) -> Status {
        if (s.int64(0) != static_cast<std::int64_t>(configs.size())) {
          return Error{fmt::format("{}: table 'kernel_configs' row {}: id {} out of sequence",
                                   db.path(), row, s.int64(0))};
        }
        if (s.int64(1) < 0 || s.int64(1) >= string_count) {
          return Error{fmt::format("{}: table 'kernel_configs' row {}: name_id = {} is not a "
                                   "string id (0..{})", db.path(), row, s.int64(1), string_count - 1)};
        }
        const auto u32 = [&s](int column) { return static_cast<std::uint32_t>(s.int64(column)); };
        configs.push_back({static_cast<StringId>(s.int64(1)), u32(2), u32(3), {u32(4), u32(5), u32(6)},
                           {u32(7), u32(8), u32(9)}, u32(10), u32(11)});
        return {};
      });
  if (!status) return status.error();
  return configs;
}

// Reads the kernel rows with rowid in [first_rowid, last_rowid] into kernels[offset...] and
// counts them in rows_read (fewer than the span where rows were deleted).
Status readRange(SqliteDatabase& db, const std::vector<KernelConfig>& configs,
                 std::int64_t first_rowid, std::int64_t last_rowid, std::size_t offset,
                 std::vector<Kernel>& kernels, std::size_t& rows_read) {
  auto statement = selectColumns(db, "kernels", {"start_ns", "end_ns", "correlation_id", "config_id"},
                                 fmt::format("rowid BETWEEN {} AND {}", first_rowid, last_rowid));
  if (!statement) return statement.error();
  const auto config_count = static_cast<std::int64_t>(configs.size());
  std::size_t index = offset;
  while (statement->step()) {
    const std::int64_t config = statement->int64(3);
    if (config < 0 || config >= config_count) {
      return Error{fmt::format("{}: table 'kernels' row {}: config_id = {} is not a "
                               "kernel_configs id (0..{})", db.path(), index + 1, config, config_count - 1)};
    }
    Kernel& k = kernels[index];
    k.start_ns = statement->int64(0);
    k.end_ns = statement->int64(1);
    k.correlation_id = static_cast<std::uint64_t>(statement->int64(2));
    applyConfig(configs[static_cast<std::size_t>(config)], k);
    ++index;
  }
  rows_read = index - offset;
  return statement->status();
}

struct RowidSpan {
  std::int64_t first = 0;
  std::int64_t last = -1;
  std::size_t size() const { return static_cast<std::size_t>(last - first + 1); }
};

// The first and last rowid: two B-tree descents, where count(*) would read every page.
Result<RowidSpan> rowidSpan(SqliteDatabase& db) {
  auto statement = db.prepare("SELECT min(rowid), max(rowid) FROM kernels");
  if (!statement) return statement.error();
  RowidSpan span;
  if (statement->step() && !statement->isNull(0)) span = {statement->int64(0), statement->int64(1)};
  if (Status status = statement->status(); !status) return status.error();
  return span;
}

}  // namespace

KernelConfig configOf(const Kernel& k) {
  return {k.name, k.device, k.stream, k.grid, k.block, k.registers_per_thread, k.shared_memory_bytes};
}

void applyConfig(const KernelConfig& config, Kernel& k) {
  k.name = config.name;
  k.device = config.device;
  k.stream = config.stream;
  k.grid = config.grid;
  k.block = config.block;
  k.registers_per_thread = config.registers_per_thread;
  k.shared_memory_bytes = config.shared_memory_bytes;
}

KernelConfigTable buildKernelConfigs(const std::vector<Kernel>& kernels) {
  KernelConfigTable table;
  table.config_of_kernel.reserve(kernels.size());
  std::unordered_map<KernelConfig, std::uint32_t, KernelConfigHash> ids;
  for (const Kernel& kernel : kernels) {
    const KernelConfig config = configOf(kernel);
    auto [found, inserted] = ids.try_emplace(config, static_cast<std::uint32_t>(table.configs.size()));
    if (inserted) table.configs.push_back(config);
    table.config_of_kernel.push_back(found->second);
  }
  return table;
}

Status readKernelRows(SqliteDatabase& db, Trace& trace) {
  auto configs = readConfigs(db, trace);
  if (!configs) return configs.error();
  auto span = rowidSpan(db);
  if (!span) return span.error();
  // Rowids of a profile written in one go are 1..n; room for the whole span, trimmed after.
  trace.kernels.assign(span->size(), Kernel{});
  if (span->size() < kRowsForTwoReaders) {
    std::size_t rows = 0;
    Status status = readRange(db, *configs, span->first, span->last, 0, trace.kernels, rows);
    trace.kernels.resize(rows);
    return status;
  }
  const std::int64_t middle = span->first + static_cast<std::int64_t>(span->size() / 2) - 1;
  const auto second_offset = static_cast<std::size_t>(middle - span->first + 1);
  auto second = SqliteDatabase::open(db.path(), SqliteDatabase::Mode::kReadOnly);
  if (!second) return second.error();
  std::size_t second_rows = 0;
  Status second_status;
  std::thread reader([&] {
    second_status = readRange(*second, *configs, middle + 1, span->last, second_offset,
                              trace.kernels, second_rows);
  });
  std::size_t first_rows = 0;
  Status first_status = readRange(db, *configs, span->first, middle, 0, trace.kernels, first_rows);
  reader.join();
  if (!first_status) return first_status;
  if (!second_status) return second_status;
  // Deleted rows leave gaps: close them so the kernels stay contiguous and in rowid order.
  if (first_rows < second_offset) {
    std::move(trace.kernels.begin() + static_cast<std::ptrdiff_t>(second_offset),
              trace.kernels.begin() + static_cast<std::ptrdiff_t>(second_offset + second_rows),
              trace.kernels.begin() + static_cast<std::ptrdiff_t>(first_rows));
  }
  trace.kernels.resize(first_rows + second_rows);
  return {};
}

}  // namespace ampscope::trace::db
