#include "analyzer/import/nsight/nsys_importer.h"

#include <algorithm>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_event_tables.h"
#include "analyzer/import/nsight/nsys_gpu_metrics.h"
#include "analyzer/import/nsight/nsys_memory_usage.h"
#include "analyzer/import/nsight/nsys_pass.h"
#include "analyzer/import/nsight/nsys_rows.h"
#include "analyzer/import/nsight/nsys_slice_assembly.h"
#include "analyzer/import/nsight/spill_file.h"
#include "analyzer/import/nsight/table_slices.h"
#include "analyzer/import/read_window_filter.h"
#include "analyzer/normalise/phase_rules.h"
#include "analyzer/normalise/range_normaliser.h"
#include "base/run_beside.h"
#include "base/thread_count.h"
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
constexpr const char* kSessionStart = "TARGET_INFO_SESSION_START_TIME";
constexpr const char* kExportMetadata = "META_DATA_EXPORT";
// What an export of none of the event tables says it is: a trace with nothing to analyze.
constexpr const char* kNoEventTables =
    "Nsight Systems export without CUDA or NVTX tables (recorded without nsys profile --trace=cuda,nvtx; its OS "
    "runtime, sampling and scheduling tables are not read)";

// "Nsight Systems SQLite export", with the export's schema version when it records one.
std::string formatDetail(SqliteDatabase& db) {
  std::string detail = "Nsight Systems SQLite export";
  if (!db.hasTable(kExportMetadata)) return detail;
  auto statement = db.prepare(fmt::format("SELECT value FROM {} WHERE name = 'EXPORT_SCHEMA_VERSION'", kExportMetadata));
  if (statement && statement->step() && !statement->text(0).empty()) {
    detail += fmt::format(" (schema {})", statement->text(0));
  }
  return detail;
}

// The session's start in nanoseconds since the Unix epoch (TARGET_INFO_SESSION_START_TIME.utcEpochNs):
// the export's timestamps count from it. nullopt where the export does not have it.
std::optional<std::int64_t> sessionStartEpochNs(SqliteDatabase& db) {
  if (!db.hasTable(kSessionStart)) return std::nullopt;
  auto statement = db.prepare(fmt::format("SELECT utcEpochNs FROM {} LIMIT 1", kSessionStart));
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

// How one reading goes: its options, who hears its stages, and the window it reads (resolved on
// the export's clock), where one was asked for.
struct NsysReading {
  const ImportOptions& options;
  const StageCallback& stage_done;
  std::optional<trace::ReadSpan> window;
};

// The export's header, strings and devices: what every trace read from it starts from (no rows),
// and the export's string ids (StringIds) by which its rows name things.
struct ExportHeader {
  trace::Trace shared;
  ForeignStrings ids;
};

Status readHeader(SqliteDatabase& db, const NsysReading& reading, ExportHeader& out) {
  trace::Trace& shared = out.shared;
  shared.format = trace::TraceFormat::kNsightSystems;
  shared.source_format = trace::TraceFormat::kNsightSystems;
  shared.format_detail = formatDetail(db);
  shared.epoch_offset_ns = sessionStartEpochNs(db);
  if (Status read = out.ids.load(db, kStrings, "id", shared.strings); !read) return read;
  if (Status read = readDevices(db, shared); !read) return read;
  if (std::none_of(std::begin(kNsysEventTables), std::end(kNsysEventTables),
                   [&](const char* table) { return db.hasTable(table); })) {
    shared.import_stats.skipped[kNoEventTables] = 1;
  }
  stageDone(reading.stage_done, "strings and devices");
  return {};
}

// One pass over the event tables, in the window where there is one: every row (`pid` none,
// `pass.pids` empty), one process's rows (`pid`), or each of `pass.pids`'s rows into its part.
Status readRows(SqliteDatabase& db, const NsysReading& reading, const ExportHeader& header,
                std::optional<std::int64_t> pid, PassOutput& pass) {
  const NsysReadScope scope{.ids = header.ids, .strings = header.shared.strings, .pid = pid, .window = reading.window,
                            .read_pages = reading.options.read_pages};
  if (Status read = readEventTables(db, scope, threadsToUse(reading.options.threads), pass); !read) return read;
  stageDone(reading.stage_done, "event tables read");
  return {};
}

// A trace from the export's header and one part's rows: the slices' names and threads given the
// trace's ids, the threads named, the rows moved in.
Status assembleTrace(SqliteDatabase& db, const NsysReading& reading, const ExportHeader& header, NsysSlices&& slices,
                     trace::Trace& out) {
  resolveSlices(slices, out);
  if (Status named = nameThreads(db, header.ids, out); !named) return named;
  moveSlicesInto(std::move(slices), out, threadsToUse(reading.options.threads));
  stageDone(reading.stage_done, "rows put together");
  return {};
}

// What the small tables add to one trace (the whole export's, or one process's), its records put
// in time order and its ranges' text read. `process`: the pid whose memory events it keeps, and
// whose devices' metric samples (the other memory events counted as other processes' records);
// none: all.
Status finishTrace(SqliteDatabase& db, std::optional<std::int64_t> process, const NsysReading& reading,
                   trace::Trace& out) {
  const StageCallback& stage_done = reading.stage_done;
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
  // The event tables were read in the window; the small tables are cut to it here.
  if (reading.window) keepWindow(out, *reading.window);
  stageDone(stage_done, "memory and metrics");
  out.sortByTime();
  stageDone(stage_done, "sorted");
  normaliseRanges(out, threadsToUse(reading.options.threads));
  stageDone(stage_done, "ranges normalised");
  return {};
}

// The processes that ran kernels (a kernel that ends before it starts is no kernel), ordered by
// the lowest device each used, then pid: as analyzer::splitByProcess numbers a whole trace's.
// One scan of the kernel table's process and device columns, in slices on `threads` threads;
// empty without a globalPid column.
trace::Result<std::vector<trace::ProcessTrace>> processesWithKernels(SqliteDatabase& db, unsigned threads) {
  std::vector<trace::ProcessTrace> out;
  if (!db.hasTable(kNsysKernels) || !db.hasColumn(kNsysKernels, "globalPid")) return out;
  const NsysColumns c(db, kNsysKernels, {"globalPid"}, {"deviceId"});
  auto slices = rowidSlices(db, kNsysKernels);
  if (!slices) return slices.error();
  using FirstDevices = std::map<std::int64_t, std::uint32_t>;  // pid -> lowest device
  const auto keepLowest = [](FirstDevices& devices, std::int64_t pid, std::uint32_t device) {
    const auto [at, fresh] = devices.emplace(pid, device);
    if (!fresh) at->second = std::min(at->second, device);
  };
  std::vector<FirstDevices> found(slices->size());
  std::vector<SliceTask> tasks;
  for (std::size_t i = 0; i < slices->size(); ++i) {
    tasks.push_back([&, i](SqliteDatabase& connection) -> Status {
      auto statement = selectSlice(connection, kNsysKernels, c.names(), (*slices)[i],
                                   {.sql = "globalPid IS NOT NULL AND end >= start", .values = {}});
      if (!statement) return statement.error();
      // A process's kernels come in runs: the map is asked only when the pair changes.
      std::optional<std::pair<std::int64_t, std::int64_t>> last;
      while (statement->step()) {
        const std::pair<std::int64_t, std::int64_t> pair{statement->int64(0), valueOr(*statement, c["deviceId"], 0)};
        if (pair == last) continue;
        last = pair;
        // NULL device: 0, as a kernel reads it.
        keepLowest(found[i], decodeGlobalTid(pair.first).pid, static_cast<std::uint32_t>(pair.second));
      }
      return statement->status();
    });
  }
  if (Status read = runSliceTasks(db, threads, tasks); !read) return read.error();
  FirstDevices first_device;
  for (const FirstDevices& slice : found) {
    for (const auto& [pid, device] : slice) keepLowest(first_device, pid, device);
  }
  for (const auto& [pid, device] : first_device) out.push_back({.pid = pid, .first_device = device, .trace = {}});
  std::stable_sort(out.begin(), out.end(), [](const trace::ProcessTrace& a, const trace::ProcessTrace& b) {
    return a.first_device != b.first_device ? a.first_device < b.first_device : a.pid < b.pid;
  });
  return out;
}

// Every row of the event tables: what a process's trace tells its own rows from.
trace::Result<std::uint64_t> eventRows(SqliteDatabase& db) {
  std::uint64_t rows = 0;
  for (const char* table : kNsysEventTables) {
    if (!db.hasTable(table)) continue;
    auto statement = db.prepare(fmt::format("SELECT count(*) FROM {}", table));
    if (!statement) return statement.error();
    if (statement->step()) rows += static_cast<std::uint64_t>(statement->int64(0));
    if (Status failed = statement->status(); !failed) return failed.error();
  }
  return rows;
}

// The whole export as one trace.
trace::Result<trace::Trace> readWhole(SqliteDatabase& db, const NsysReading& reading) {
  ExportHeader header;
  if (Status read = readHeader(db, reading, header); !read) return read.error();
  PassOutput pass;
  if (Status read = readRows(db, reading, header, std::nullopt, pass); !read) return read.error();
  trace::Trace out = std::move(header.shared);
  if (Status built = assembleTrace(db, reading, header, std::move(pass.parts[0]), out); !built) return built.error();
  if (Status status = finishTrace(db, std::nullopt, reading, out); !status) return status.error();
  return out;
}

// One process's trace from its part of a pass: `shared` (the export's header) and its rows. The
// file's other rows are counted as passed by.
Status finishProcess(SqliteDatabase& db, const NsysReading& reading, const ExportHeader& header, trace::Trace&& shared,
                     NsysSlices&& slices, std::uint64_t file_rows, trace::ProcessTrace& part) {
  part.trace = std::move(shared);
  if (Status built = assembleTrace(db, reading, header, std::move(slices), part.trace); !built) return built;
  const std::uint64_t own = part.trace.import_stats.events_read;
  if (file_rows > own) {
    // Outside a window, rows of this process are passed by too.
    const std::string reason = reading.window ? fmt::format("rows of the file's other processes or outside --window {} "
                                                            "(not read)", reading.window->asked)
                                              : std::string(trace::kOtherProcessesSkipped);
    part.trace.import_stats.skipped[reason] += file_rows - own;
  }
  return finishTrace(db, part.pid, reading, part.trace);
}

// Every process's trace from one pass over the file, handed to `each` in the order of
// `processes`: the rows of all but the first wait in a spill file meanwhile (where none can be
// made, in memory), so that reading the file once costs no more memory than reading it once per
// process. `only`: the one process wanted, its rows alone read (SQLite passes the others by).
// `file_rows`: every row of the event tables, counted beforehand where the pass cannot count
// them (a read of one process or in a window passes rows by in SQLite, unseen); none: the pass
// steps over every row and counts them.
Status readProcesses(SqliteDatabase& db, const NsysReading& reading, std::optional<std::uint64_t> file_rows,
                     std::vector<trace::ProcessTrace>& processes, std::optional<std::int64_t> only,
                     const ProcessTraceSink& each, bool& any_records) {
  ExportHeader header;
  if (Status read = readHeader(db, reading, header); !read) return read;
  if (only) {
    const auto wanted = std::find_if(processes.begin(), processes.end(),
                                     [&](const trace::ProcessTrace& p) { return p.pid == *only; });
    if (wanted == processes.end()) return {};
    PassOutput pass;
    if (Status read = readRows(db, reading, header, only, pass); !read) return read;
    if (Status built = finishProcess(db, reading, header, std::move(header.shared), std::move(pass.parts[0]),
                                     file_rows.value_or(0), *wanted);
        !built) {
      return built;
    }
    any_records = wanted->trace.eventCount() > 0;
    return each(std::move(*wanted));
  }
  PassOutput pass;
  for (const trace::ProcessTrace& p : processes) pass.pids.push_back(p.pid);
  if (processes.size() > 1) pass.spill = SpillFile::make();
  if (Status read = readRows(db, reading, header, std::nullopt, pass); !read) return read;
  const std::uint64_t rows = file_rows ? *file_rows : rowsOfPass(pass);
  // In a window, a process with no record in it is no rank of the job: it is left out, and each
  // process read says how many were, and that the job had them all (its world size), so that the
  // job says its figures cover some of its ranks.
  const auto world_size = static_cast<std::int32_t>(processes.size());
  std::size_t left_out = 0;
  if (reading.window) {
    for (std::size_t i = processes.size(); i-- > 0;) {
      if (holdsRecords(pass.parts[i])) continue;
      processes.erase(processes.begin() + static_cast<std::ptrdiff_t>(i));
      pass.parts.erase(pass.parts.begin() + static_cast<std::ptrdiff_t>(i));
      ++left_out;
    }
  }
  for (std::size_t i = 0; i < processes.size(); ++i) {
    trace::ProcessTrace& part = processes[i];
    if (Status restored = restorePart(pass, i, threadsToUse(reading.options.threads)); !restored) return restored;
    // The last process takes the header itself; the others a copy of it.
    trace::Trace shared = i + 1 == processes.size() ? std::move(header.shared) : header.shared;
    if (Status built = finishProcess(db, reading, header, std::move(shared), std::move(pass.parts[i]), rows, part);
        !built) {
      return built;
    }
    if (left_out > 0) {
      if (!part.trace.distributed.worldSizeKnown()) part.trace.distributed.world_size = world_size;
      part.trace.import_stats.skipped[fmt::format("processes with kernels but no records in --window {} (not ranks "
                                                  "of the job)",
                                                  reading.window->asked)] += left_out;
    }
    pass.parts[i] = {};
    any_records = any_records || part.trace.eventCount() > 0;
    if (Status taken = each(std::move(part)); !taken) return taken;
    part.trace = {};  // what the sink left of it
  }
  return {};
}

// The step ranges an export's NVTX events hold (ProfilerStep#N, the trainer's "step N"), inline
// text or registered strings: SQLite picks the candidates by name, phaseFromName decides.
trace::Result<std::vector<StepRange>> nsysStepRanges(SqliteDatabase& db) {
  std::vector<StepRange> out;
  if (!db.hasTable(kNsysNvtx)) return out;
  const auto number = [](std::string_view name) {
    return phaseFromName(name) == trace::Phase::kStep ? stepNumberFromName(name) : -1;
  };
  constexpr std::string_view kNamedLikeAStep = "(value LIKE 'ProfilerStep#%' OR value LIKE 'step %')";
  std::unordered_map<std::int64_t, std::int64_t> registered;  // textId -> step number
  if (db.hasTable(kStrings)) {
    auto strings = db.prepare(fmt::format("SELECT id, value FROM {} WHERE {}", kStrings, kNamedLikeAStep));
    if (!strings) return strings.error();
    while (strings->step()) {
      if (const std::int64_t n = number(strings->text(1)); n >= 0) registered.emplace(strings->int64(0), n);
    }
    if (Status failed = strings->status(); !failed) return failed.error();
  }
  const bool text = db.hasColumn(kNsysNvtx, "text");
  const bool text_id = db.hasColumn(kNsysNvtx, "textId") && !registered.empty();
  if (!text && !text_id) return out;
  std::string named;
  if (text) named = "text LIKE 'ProfilerStep#%' OR text LIKE 'step %'";
  if (text_id) {
    std::string ids;
    for (const auto& [id, n] : registered) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", id);
    named += fmt::format("{}textId IN ({})", named.empty() ? "" : " OR ", ids);
  }
  auto ranges = db.prepare(fmt::format("SELECT start, end, {}, {} FROM {} WHERE eventType IN (59, 60) AND end > start "
                                       "AND ({})",
                                       text ? "text" : "NULL", text_id ? "textId" : "NULL", kNsysNvtx, named));
  if (!ranges) return ranges.error();
  while (ranges->step()) {
    std::int64_t n = ranges->isNull(2) ? -1 : number(ranges->text(2));
    if (n < 0 && !ranges->isNull(3)) {
      const auto found = registered.find(ranges->int64(3));
      if (found != registered.end()) n = found->second;
    }
    if (n >= 0) out.push_back({.number = n, .start_ns = ranges->int64(0), .end_ns = ranges->int64(1)});
  }
  if (Status failed = ranges->status(); !failed) return failed.error();
  return out;
}

// The span a window names on an export's clock: its times count from the session's start, the
// zero Nsight Systems shows, so seconds are read as they are; steps are found by their ranges.
trace::Result<std::optional<trace::ReadSpan>> nsysWindow(SqliteDatabase& db, const ImportOptions& options) {
  if (!options.window) return std::optional<trace::ReadSpan>();
  if (const auto* steps = std::get_if<StepWindow>(&*options.window)) {
    auto ranges = nsysStepRanges(db);
    if (!ranges) return ranges.error();
    auto span = spanOfSteps(*ranges, *steps, db.path());
    if (!span) return span.error();
    return std::optional<trace::ReadSpan>(std::move(span).value());
  }
  return std::optional<trace::ReadSpan>(spanOfSeconds(std::get<SecondsWindow>(*options.window), 0));
}

// The error for a window that holds none of the export's records, with the span the recording
// covers (one scan of each event table's times, made only then).
trace::Error emptyWindow(SqliteDatabase& db, const trace::ReadSpan& window) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const char* table : kNsysEventTables) {
    if (!db.hasTable(table)) continue;
    auto statement = db.prepare(fmt::format("SELECT min(start), max(coalesce(end, start)) FROM {}", table));
    if (!statement || !statement->step() || statement->isNull(0)) continue;
    first = std::min(first, statement->int64(0));
    last = std::max(last, statement->int64(1));
  }
  if (last < first) return trace::Error{fmt::format("{}: --window {}: the export holds no records", db.path(), window.asked)};
  return trace::Error{fmt::format("{}: --window {}: no records in it; the recording runs from {:.3f} s to {:.3f} s "
                                  "(Nsight Systems' clock, from the session's start)",
                                  db.path(), window.asked, static_cast<double>(first) / 1e9,
                                  static_cast<double>(last) / 1e9)};
}

}  // namespace

bool isNsightSystemsDatabase(SqliteDatabase& db) {
  // Nsight Systems makes a table only for what it recorded: an export of a run traced without CUDA
  // or NVTX (OS runtime calls, CPU samples, scheduling alone) is known by the session tables every
  // export has.
  return db.hasTable(kStrings) && (db.hasTable(kNsysKernels) || db.hasTable(kNsysNvtx) || db.hasTable(kGpus) ||
                                   db.hasTable(kSessionStart) || db.hasTable(kExportMetadata));
}

trace::Result<trace::Trace> importNsightSystems(SqliteDatabase& db, const ImportOptions& options,
                                                const StageCallback& stage_done) {
  auto window = nsysWindow(db, options);
  if (!window) return window.error();
  auto whole = readWhole(db, NsysReading{options, stage_done, *window});
  if (whole && *window && whole->eventCount() == 0) return emptyWindow(db, **window);
  return whole;
}

trace::Result<trace::Trace> importNsightSystems(SqliteDatabase& db) { return importNsightSystems(db, {}, {}); }

Status importNsightSystemsByProcess(SqliteDatabase& db, const ImportOptions& options, const StageCallback& stage_done,
                                    std::optional<std::int64_t> only, const ProcessTraceSink& each) {
  auto window = nsysWindow(db, options);
  if (!window) return window.error();
  const NsysReading reading{options, stage_done, *window};
  // What a process's trace tells its own rows from, every row of the file, is counted by the pass
  // where it steps over every row; a read of one process or in a window passes rows by in SQLite,
  // so there they are counted beforehand, on a connection of their own while the kernels'
  // processes are found (an export of one process does not need the count).
  const bool count_first = only.has_value() || window->has_value();
  std::optional<trace::Result<std::uint64_t>> counted_rows;
  std::future<void> counted;
  if (count_first) {
    counted = runBeside(threadsToUse(options.threads) > 1, [&] {
      auto connection = SqliteDatabase::open(db.path(), SqliteDatabase::Mode::kReadOnly);
      if (connection) counted_rows.emplace(eventRows(*connection));  // else counted below, on db
    });
  }
  auto processes = processesWithKernels(db, threadsToUse(options.threads));
  if (counted.valid()) counted.get();
  if (!processes) return processes.error();
  if (processes->size() < 2) {
    auto whole = readWhole(db, reading);
    if (!whole) return whole.error();
    if (*window && whole->eventCount() == 0) return emptyWindow(db, **window);
    trace::ProcessTrace part{
        .pid = trace::kUnknownPid, .first_device = 0, .trace = std::move(whole).value(), .one_of_several = false};
    if (!part.trace.kernels.empty()) part.pid = part.trace.kernels.front().pid;
    return each(std::move(part));
  }
  std::optional<std::uint64_t> file_rows;
  if (count_first) {
    if (!counted_rows) counted_rows.emplace(eventRows(db));
    if (!*counted_rows) return counted_rows->error();
    file_rows = **counted_rows;
  }
  bool any_records = false;
  if (Status read = readProcesses(db, reading, file_rows, *processes, only, each, any_records); !read) return read;
  if (*window && !any_records) return emptyWindow(db, **window);
  return {};
}

}  // namespace ampscope::analyzer::import
