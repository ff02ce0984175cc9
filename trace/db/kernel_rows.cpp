#include "trace/db/kernel_rows.h"

#include <fmt/format.h>

#include <unordered_map>

#include "trace/db/sqlite_database.h"
#include "trace/db/table_reader.h"

namespace ampscope::trace::db {

std::size_t KernelConfigHash::operator()(const KernelConfig& c) const {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the fields
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  mix(c.name);
  mix(c.device);
  mix(c.stream);
  for (std::uint32_t v : c.grid) mix(v);
  for (std::uint32_t v : c.block) mix(v);
  mix(c.registers_per_thread);
  mix(c.shared_memory_bytes);
  mix(static_cast<std::uint64_t>(c.pid));
  return static_cast<std::size_t>(h);
}

namespace {

Result<std::vector<KernelConfig>> readConfigs(SqliteDatabase& db, const Trace& trace) {
  std::vector<KernelConfig> configs;
  const auto string_count = static_cast<std::int64_t>(trace.strings.size());
  std::vector<std::string_view> columns = {"id", "name_id", "device", "stream", "grid_x", "grid_y", "grid_z",
                                           "block_x", "block_y", "block_z", "registers_per_thread",
                                           "shared_memory_bytes"};
  // Schema 1.4 adds the process; older profiles' kernels get it from their launches on import.
  const bool has_pid = db.hasColumn("kernel_configs", "pid");
  if (has_pid) columns.push_back("pid");
  Status status = forEachRow(
      db, "kernel_configs", columns,
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
                           {u32(7), u32(8), u32(9)}, u32(10), u32(11), has_pid ? s.int64(12) : kUnknownPid});
        return {};
      });
  if (!status) return status.error();
  return configs;
}

}  // namespace

KernelConfig configOf(const Kernel& k) {
  return {k.name, k.device, k.stream, k.grid, k.block, k.registers_per_thread, k.shared_memory_bytes, k.pid};
}

void applyConfig(const KernelConfig& config, Kernel& k) {
  k.name = config.name;
  k.device = config.device;
  k.stream = config.stream;
  k.grid = config.grid;
  k.block = config.block;
  k.registers_per_thread = config.registers_per_thread;
  k.shared_memory_bytes = config.shared_memory_bytes;
  k.pid = config.pid;
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
  const auto config_count = static_cast<std::int64_t>(configs->size());
  return readTableRows(db, "kernels", {"start_ns", "end_ns", "correlation_id", "config_id"}, trace.kernels,
                       [&](std::int64_t row, Statement& s, Kernel& k) -> Status {
                         const std::int64_t config = s.int64(3);
                         if (config < 0 || config >= config_count) {
                           return Error{fmt::format("{}: table 'kernels' row {}: config_id = {} is not a "
                                                    "kernel_configs id (0..{})", db.path(), row, config,
                                                    config_count - 1)};
                         }
                         k.start_ns = s.int64(0);
                         k.end_ns = s.int64(1);
                         k.correlation_id = static_cast<std::uint64_t>(s.int64(2));
                         applyConfig((*configs)[static_cast<std::size_t>(config)], k);
                         return {};
                       });
}

}  // namespace ampscope::trace::db
