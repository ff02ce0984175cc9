#pragma once
// The kernels table is the largest in a profile. A kernel's launch configuration (name, device,
// stream, grid, block, registers, shared memory) repeats every iteration: real traces have 2-6 %
// distinct configurations. So the configurations live once in kernel_configs and each kernel
// row holds its times, correlation id and a configuration id: four columns, which SQLite reads
// several times faster than fourteen. Large tables are read by two connections at once.

#include <array>
#include <cstdint>
#include <vector>

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {

class SqliteDatabase;

// The part of a Kernel that repeats across iterations.
struct KernelConfig {
  StringId name = StringTable::kEmpty;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::uint32_t registers_per_thread = 0;
  std::uint32_t shared_memory_bytes = 0;
  std::int64_t pid = kUnknownPid;

  bool operator==(const KernelConfig&) const = default;
};

struct KernelConfigHash {
  std::size_t operator()(const KernelConfig& config) const;
};

KernelConfig configOf(const Kernel& kernel);
void applyConfig(const KernelConfig& config, Kernel& kernel);

// The distinct configurations of kernels, in first-seen order, and each kernel's index into them.
struct KernelConfigTable {
  std::vector<KernelConfig> configs;
  std::vector<std::uint32_t> config_of_kernel;
};
KernelConfigTable buildKernelConfigs(const std::vector<Kernel>& kernels);

// Reads kernel_configs and kernels into trace.kernels, checking ids against trace.strings and
// the configurations.
Status readKernelRows(SqliteDatabase& db, Trace& trace);

}  // namespace ampscope::trace::db
