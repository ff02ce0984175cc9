#include "analyzer/import/nsight/nsys_importer.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_event_tables.h"
#include "analyzer/import/nsight/nsys_gpu_metrics.h"
#include "analyzer/import/nsight/nsys_memory_usage.h"
#include "analyzer/import/nsight/nsys_rows.h"
#include "analyzer/import/nsight/nsys_slice_assembly.h"
#include "analyzer/import/nsight/table_slices.h"
#include "analyzer/normalise/range_normaliser.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Error;
using trace::Status;
using trace::db::SqliteDatabase;
using trace::db::Statement;
using trace::db::forEachRow;

constexpr const char* kStrings = "StringIds";
constexpr const char* kGpus = "TARGET_INFO_GPU";
constexpr const char* kThreadNames = "ThreadNames";

// "Nsight Systems SQLite export", with the export's schema version when it records one.
std::string formatDetail(SqliteDatabase& db) {
  std::string detail = "Nsight Systems SQLite export";
  if (!db.hasTable("META_DATA_EXPORT")) return detail;
  auto statement = db.prepare("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'");
  if (statement && statement->step() && !statement->text(0).empty()) {
    detail += fmt::format(" (schema {})", statement->text(0));
  }
  return detail;
}

// The session's start in nanoseconds since the Unix epoch (TARGET_INFO_SESSION_START_TIME.utcEpochNs):
// the export's timestamps count from it. nullopt where the export does not have it.
std::optional<std::int64_t> sessionStartEpochNs(SqliteDatabase& db) {
  if (!db.hasTable("TARGET_INFO_SESSION_START_TIME")) return std::nullopt;
  auto statement = db.prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
  if (!statement || !statement->step() || statement->isNull(0)) return std::nullopt;
  const std::int64_t start = statement->int64(0);
  return start > 0 ? std::optional<std::int64_t>(start) : std::nullopt;
}

Status readDevices(SqliteDatabase& db, trace::Trace& out) {
  if (!db.hasTable(kGpus)) return {};
  const NsysColumns c(db, kGpus, {"id", "name"},
                      {"cuDevice", "computeMajor", "computeMinor", "smCount", "totalMemory", "clockRate",
                       "memoryBandwidth"});
  return forEachRow(db, kGpus, c.names(), [&](std::int64_t, Statement& s) -> Status {
    // Kernels name their device by CUDA ordinal; Nsight's own GPU id is the fallback.
    const std::uint32_t id = deviceOrdinal(s, c["cuDevice"], s.int64(c["id"]));
    for (const trace::Device& known : out.devices) {
      if (known.id == id) return {};  // one row per VM that saw the GPU; keep the first
    }
    trace::Device& d = out.devices.emplace_back();
    d.id = id;
    d.name = out.strings.intern(s.text(c["name"]));
    d.compute_major = static_cast<std::int32_t>(valueOr(s, c["computeMajor"], 0));
    d.compute_minor = static_cast<std::int32_t>(valueOr(s, c["computeMinor"], 0));
    d.sm_count = static_cast<std::int32_t>(valueOr(s, c["smCount"], 0));
    d.total_memory_bytes = static_cast<std::uint64_t>(valueOr(s, c["totalMemory"], 0));
    // The peak SM clock in Hz and the DRAM bandwidth in bytes per second (0: not recorded).
    d.sm_clock_khz = std::max<std::int64_t>(0, valueOr(s, c["clockRate"], 0)) / 1000;
    d.memory_bandwidth_bytes_per_s =
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, valueOr(s, c["memoryBandwidth"], 0)));
    return {};
  });
}

// Thread names are metadata of threads that have events, not events themselves.
Status nameThreads(SqliteDatabase& db, const ForeignStrings& ids, trace::Trace& out) {
  if (!db.hasTable(kThreadNames) || out.threads.empty()) return {};
  return forEachRow(db, kThreadNames, {"nameId", "globalTid"}, [&](std::int64_t row, Statement& s) -> Status {
    const NsysThreadId id = decodeGlobalTid(s.int64(1));
    for (trace::Thread& thread : out.threads) {
      if (thread.pid != id.pid || thread.tid != id.tid) continue;
      if (ids.lookup(kThreadNames, row, "nameId", s.int64(0), thread.name)) return {};
      thread.name = trace::StringTable::kEmpty;
      out.import_stats.notUnderstood(
          fmt::format("table '{}' column 'nameId' ids missing from {} (left unnamed)", kThreadNames, kStrings),
          rowPlace(kThreadNames, row));
      return {};
    }
    return {};
  });
}

// One task per slice of each event table, decoding into its own TableSlice.
template <typename Table, typename Record>
Status addSliceTasks(SqliteDatabase& db, const char* table, const Table& reader, std::vector<TableSlice<Record>>& out,
                     std::vector<SliceTask>& tasks) {
  auto slices = rowidSlices(db, table);
  if (!slices) return slices.error();
  out.resize(slices->size());
  for (std::size_t i = 0; i < slices->size(); ++i) {
    tasks.push_back([&reader, &slice_out = out[i], slice = (*slices)[i]](SqliteDatabase& connection) {
      return reader.read(connection, slice, slice_out);
    });
  }
  return {};
}

// The event tables, read in slices on options.threads threads.
trace::Result<NsysSlices> readEventTables(SqliteDatabase& db, const ForeignStrings& ids, const trace::Trace& out,
                                          const ImportOptions& options) {
  const NsysStrings strings{ids, out.strings};
  NsysSlices slices;
  std::vector<SliceTask> tasks;
  // The largest tables first, so that no thread is left with a long one at the end.
  std::optional<NvtxTable> nvtx;
  if (db.hasTable(kNsysNvtx)) {
    nvtx.emplace(db, strings);
    if (Status added = addSliceTasks(db, kNsysNvtx, *nvtx, slices.nvtx, tasks); !added) return added.error();
  }
  std::optional<ApiTable> runtime;
  if (db.hasTable(kNsysRuntime)) {
    runtime.emplace(db, kNsysRuntime, strings);
    if (Status added = addSliceTasks(db, kNsysRuntime, *runtime, slices.runtime, tasks); !added) return added.error();
  }
  std::optional<KernelTable> kernels;
  if (db.hasTable(kNsysKernels)) {
    auto made = KernelTable::make(db, strings);
    if (!made) return made.error();
    kernels.emplace(std::move(made).value());
    if (Status added = addSliceTasks(db, kNsysKernels, *kernels, slices.kernels, tasks); !added) return added.error();
  }
  std::optional<ApiTable> driver;
  if (db.hasTable(kNsysDriver)) {
    driver.emplace(db, kNsysDriver, strings);
    if (Status added = addSliceTasks(db, kNsysDriver, *driver, slices.driver, tasks); !added) return added.error();
  }
  std::optional<MemoryOpTable> memcpy;
  if (db.hasTable(kNsysMemcpy)) {
    memcpy.emplace(db, kNsysMemcpy);
    if (Status added = addSliceTasks(db, kNsysMemcpy, *memcpy, slices.memcpy, tasks); !added) return added.error();
  }
  std::optional<MemoryOpTable> memset;
  if (db.hasTable(kNsysMemset)) {
    memset.emplace(db, kNsysMemset);
    if (Status added = addSliceTasks(db, kNsysMemset, *memset, slices.memset, tasks); !added) return added.error();
  }
  std::optional<SyncTable> syncs;
  if (db.hasTable(kNsysSync)) {
    syncs.emplace(db);
    if (Status added = addSliceTasks(db, kNsysSync, *syncs, slices.syncs, tasks); !added) return added.error();
  }
  if (Status read = runSliceTasks(db, threadsToUse(options.threads), tasks); !read) return read.error();
  return slices;
}

// The export's header, strings, devices and threads, and its event tables read as slices whose
// names and threads are the trace's: what both the whole trace and the per-process parts start from.
struct ReadExport {
  trace::Trace shared;  // no rows
  NsysSlices slices;
};

Status readExport(SqliteDatabase& db, const ImportOptions& options, const StageCallback& stage_done, ReadExport& out) {
  trace::Trace& shared = out.shared;
  shared.format = trace::TraceFormat::kNsightSystems;
  shared.source_format = trace::TraceFormat::kNsightSystems;
  shared.format_detail = formatDetail(db);
  shared.epoch_offset_ns = sessionStartEpochNs(db);
  ForeignStrings ids;
  if (Status read = ids.load(db, kStrings, "id", shared.strings); !read) return read;
  if (Status read = readDevices(db, shared); !read) return read;
  stageDone(stage_done, "strings and devices");
  auto slices = readEventTables(db, ids, shared, options);
  if (!slices) return slices.error();
  out.slices = std::move(slices).value();
  stageDone(stage_done, "event tables read");
  resolveSlices(out.slices, shared);
  return nameThreads(db, ids, shared);
}

// What the small tables add to one trace (the whole export's, or one process's), its records put
// in time order and its ranges' text read. `process`: the pid whose memory events it keeps, and
// whose devices' metric samples (the others counted as other processes' records); none: all.
Status finishTrace(SqliteDatabase& db, std::optional<std::int64_t> process, const StageCallback& stage_done,
                   trace::Trace& out) {
  // After the API calls: each allocation takes the thread of the call that made it.
  if (Status read = readCudaMemoryUsage(db, out); !read) return read;
  if (Status read = readGpuMetrics(db, out); !read) return read;
  if (process) {
    const auto others = std::erase_if(out.memory_events, [&](const trace::MemoryEvent& e) { return e.pid != *process; });
    if (others > 0) out.import_stats.skipped[trace::kOtherProcessesSkipped] += others;
    // Metric samples are a device's: they go with each process that ran kernels on it.
    std::set<std::uint32_t> devices_used;
    for (const trace::Kernel& k : out.kernels) devices_used.insert(k.device);
    std::erase_if(out.metric_samples, [&](const trace::MetricSample& m) { return devices_used.count(m.device) == 0; });
  }
  stageDone(stage_done, "memory and metrics");
  out.sortByTime();
  stageDone(stage_done, "sorted");
  normaliseRanges(out);
  stageDone(stage_done, "ranges normalised");
  return {};
}

}  // namespace

bool isNsightSystemsDatabase(SqliteDatabase& db) {
  return db.hasTable(kStrings) && (db.hasTable(kNsysKernels) || db.hasTable(kNsysNvtx) || db.hasTable(kGpus));
}

trace::Result<trace::Trace> importNsightSystems(SqliteDatabase& db, const ImportOptions& options,
                                                const StageCallback& stage_done) {
  ReadExport read;
  if (Status status = readExport(db, options, stage_done, read); !status) return status.error();
  trace::Trace out = std::move(read.shared);
  moveSlicesInto(std::move(read.slices), out);
  stageDone(stage_done, "rows put together");
  if (Status status = finishTrace(db, std::nullopt, stage_done, out); !status) return status.error();
  return out;
}

trace::Result<trace::Trace> importNsightSystems(SqliteDatabase& db) { return importNsightSystems(db, {}, {}); }

trace::Result<std::vector<trace::ProcessTrace>> importNsightSystemsByProcess(SqliteDatabase& db,
                                                                             const ImportOptions& options,
                                                                             const StageCallback& stage_done) {
  ReadExport read;
  if (Status status = readExport(db, options, stage_done, read); !status) return status.error();
  const std::vector<NsysProcess> processes = processesWithKernels(read.slices);
  std::vector<trace::ProcessTrace> parts;
  if (processes.empty()) {
    trace::ProcessTrace& whole = parts.emplace_back();
    whole.trace = std::move(read.shared);
    moveSlicesInto(std::move(read.slices), whole.trace);
    if (!whole.trace.kernels.empty()) whole.pid = whole.trace.kernels.front().pid;
    stageDone(stage_done, "rows put together");
    if (Status status = finishTrace(db, std::nullopt, stage_done, whole.trace); !status) return status.error();
    return parts;
  }
  parts = moveSlicesIntoProcesses(std::move(read.slices), read.shared, processes);
  read.shared = {};
  stageDone(stage_done, "rows put together");
  // Each process's trace is its own: they are finished side by side, each on its own connection.
  std::vector<SliceTask> finish;
  for (trace::ProcessTrace& part : parts) {
    finish.push_back([&part, &stage_done](SqliteDatabase& connection) {
      return finishTrace(connection, part.pid, stage_done, part.trace);
    });
  }
  if (Status status = runSliceTasks(db, threadsToUse(options.threads), finish); !status) return status.error();
  return parts;
}

}  // namespace ampscope::analyzer::import
