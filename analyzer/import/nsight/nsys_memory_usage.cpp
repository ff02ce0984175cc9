#include "analyzer/import/nsight/nsys_memory_usage.h"

#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_rows.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Status;

constexpr const char* kMemoryUsage = "CUDA_GPU_MEMORY_USAGE_EVENTS";

// ENUM_CUDA_DEV_MEM_EVENT_OPER.
enum MemoryOperation : std::int64_t { kAllocation = 0, kDeallocation = 1 };

// The thread of each CUDA API call (runtime or driver: a memory record carries the driver call's
// correlation id), by process and correlation id, which is unique only within its process.
class CallThreads {
 public:
  explicit CallThreads(const trace::Trace& trace) {
    for (const trace::LaunchCall& call : trace.launches) {
      if (call.thread != trace::kNone) threads_.emplace(Key{trace.pidOfThread(call.thread), call.correlation_id}, call.thread);
    }
  }
  trace::Index find(std::int64_t pid, std::uint64_t correlation_id) const {
    const auto found = threads_.find(Key{pid, correlation_id});
    return found == threads_.end() ? trace::kNone : found->second;
  }

 private:
  struct Key {
    std::int64_t pid = 0;
    std::uint64_t correlation_id = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      return std::hash<std::uint64_t>{}(key.correlation_id * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(key.pid));
    }
  };
  std::unordered_map<Key, trace::Index, KeyHash> threads_;
};

// Memory that is not the GPU's own: host memory the CUDA driver allocated (pinned, pageable)
// and managed memory, which migrates between host and GPU on demand.
std::string notTheGpusReason(trace::MemoryKind kind) {
  const char* what = kind == trace::MemoryKind::kManaged ? "managed memory (it migrates between host and GPU)"
                                                         : kind == trace::MemoryKind::kPinned ? "pinned host memory"
                                                                                               : "pageable host memory";
  return fmt::format("{} events of {}: not the GPU's own memory", kMemoryUsage, what);
}

}  // namespace

Status readCudaMemoryUsage(trace::db::SqliteDatabase& db, trace::Trace& out) {
  if (!db.hasTable(kMemoryUsage)) return {};
  const NsysColumns c(db, kMemoryUsage, {"start", "bytes", "memKind", "memoryOperationType", "deviceId"},
                      {"address", "globalPid", "correlationId"});
  const CallThreads call_threads(out);
  trace::ImportStats& stats = out.import_stats;
  return trace::db::forEachRow(db, kMemoryUsage, c.names(), [&](std::int64_t row, trace::db::Statement& s) -> Status {
    ++stats.events_read;
    const std::int64_t kind_value = s.int64(2);
    const trace::MemoryKind kind = memoryKindFromNsys(kind_value);
    if (kind == trace::MemoryKind::kPageable || kind == trace::MemoryKind::kPinned || kind == trace::MemoryKind::kManaged) {
      ++stats.skipped[notTheGpusReason(kind)];
      return {};
    }
    if (kind == trace::MemoryKind::kUnknown) {
      stats.notUnderstood(fmt::format("{} events of memory kind {}: not known to be the GPU's (left out)", kMemoryUsage,
                                      kind_value),
                          rowPlace(kMemoryUsage, row));
      return {};
    }
    const std::int64_t operation = s.int64(3);
    if (operation != kAllocation && operation != kDeallocation) {
      stats.notUnderstood(fmt::format("{} events of operation type {} (left out)", kMemoryUsage, operation),
                          rowPlace(kMemoryUsage, row));
      return {};
    }
    const std::int64_t bytes = s.int64(1);
    if (bytes < 0) {
      stats.notUnderstood(fmt::format("{} events whose size is negative (left out)", kMemoryUsage), rowPlace(kMemoryUsage, row));
      return {};
    }
    const std::int64_t device = s.int64(4);
    if (device < 0 || device > std::numeric_limits<std::uint32_t>::max()) {
      stats.notUnderstood(fmt::format("{} events without a device id >= 0 (left out)", kMemoryUsage),
                          rowPlace(kMemoryUsage, row));
      return {};
    }
    trace::MemoryEvent& m = out.memory_events.emplace_back();
    m.time_ns = s.int64(0);
    m.bytes = operation == kAllocation ? bytes : -bytes;
    // SQLite keeps a 64-bit address above 2^63 as a negative INTEGER: its bits are the address.
    if (has(s, c["address"])) m.address = static_cast<std::uint64_t>(s.int64(c["address"]));
    m.device_kind = trace::DeviceKind::kGpu;
    m.device = static_cast<std::uint32_t>(device);
    m.pid = pidOf(s, c["globalPid"]);
    if (has(s, c["correlationId"]) && m.pid != trace::kUnknownPid) {
      m.thread = call_threads.find(m.pid, static_cast<std::uint64_t>(s.int64(c["correlationId"])));
    }
    ++stats.events_imported;
    return {};
  });
}

}  // namespace ampscope::analyzer::import
