#include "analyzer/import/nsight/nsys_importer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "analyzer/import/nsight/cupti_enums.h"
#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_gpu_metrics.h"
#include "analyzer/import/nsight/nsys_memory_usage.h"
#include "analyzer/import/nsight/nsys_rows.h"
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
constexpr const char* kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kDriver = "CUPTI_ACTIVITY_KIND_DRIVER";
constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr const char* kNvtx = "NVTX_EVENTS";
constexpr const char* kThreadNames = "ThreadNames";
constexpr const char* kUnterminated = "ranges without an end (kept, closed at the end of the trace)";

// ENUM_NSYS_EVENT_TYPE values found in NVTX_EVENTS.eventType.
enum NvtxEventType : std::int64_t {
  kNvtxCategory = 33, kNvtxMark = 34, kNvtxThread = 39, kNvtxPushPopRange = 59,
  kNvtxStartEndRange = 60, kNvtxDomainCreate = 75, kNvtxDomainDestroy = 76,
};

// ENUM_NSYS_EVENT_CLASS values found in CUPTI_ACTIVITY_KIND_RUNTIME.eventClass: Nsight keeps
// runtime and driver calls in one table and tells them apart by class.
enum ApiEventClass : std::int64_t {
  kClassCudaRuntime = 0, kClassCudaDriver = 1, kClassCudaEglDriver = 13, kClassCudaBacktrace = 67,
};

// ENUM_CUDA_MEMCPY_OPER is CUPTI's memcpy kind plus three unified-memory migrations.
trace::CopyDirection copyDirectionFromNsys(std::int64_t kind) {
  switch (kind) {
    case 11: return trace::CopyDirection::kHostToDevice;    // UVM_HTOD
    case 12: return trace::CopyDirection::kDeviceToHost;    // UVM_DTOH
    case 13: return trace::CopyDirection::kDeviceToDevice;  // UVM_DTOD
    default: return copyDirectionFromCupti(kind);
  }
}

// Runtime API names carry the CUDA version that introduced them ("cudaLaunchKernel_v7000");
// dropping it makes them match the other importers. Short suffixes such as the driver's "_v2"
// are part of the function's name and stay.
std::string_view withoutVersionSuffix(std::string_view name) {
  const std::size_t at = name.rfind("_v");
  if (at == std::string_view::npos) return name;
  const std::string_view digits = name.substr(at + 2);
  const bool version = digits.size() >= 4 && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  return version ? name.substr(0, at) : name;
}

// Reads the export's tables into out. The GPU's tables (kernels, memory operations,
// synchronisations) touch nothing the host's tables (API calls, NVTX) do but the string lookup,
// which is read-only once loaded: two readers, on two connections, read them at once.
class NsysReader {
 public:
  NsysReader(SqliteDatabase& db, trace::Trace& out, ForeignStrings& strings) : db_(db), out_(out), strings_(strings) {}

  // The export's strings and devices: before either side's tables.
  Status readShared() {
    if (Status s = readStrings(); !s) return s;
    return readDevices();
  }
  Status readGpuTables() {
    if (Status s = readKernels(); !s) return s;
    if (Status s = readMemoryOps(kMemcpy); !s) return s;
    if (Status s = readMemoryOps(kMemset); !s) return s;
    return readSynchronization();
  }
  Status readHostTables() {
    if (Status s = readApi(kRuntime); !s) return s;
    if (Status s = readApi(kDriver); !s) return s;
    if (Status s = readNvtx(); !s) return s;
    return nameThreads();
  }
  // The latest time this reader has seen.
  std::int64_t lastNs() const { return last_ns_; }
  // Ranges pushed or started but never ended close at last_ns: the end of the whole trace,
  // known once both sides are read.
  void closeUnterminatedRanges(std::int64_t last_ns) {
    for (std::size_t index : unterminated_) {
      trace::Range& r = out_.ranges[index];
      r.end_ns = std::max(r.start_ns, last_ns);
    }
  }

 private:
  // A name by its id in StringIds. An id the table lacks leaves the name empty: counted with its
  // place, the record kept.
  Status stringId(std::string_view table, std::int64_t row, std::string_view column,
                  std::int64_t nsys_id, trace::StringId& out) {
    if (strings_.lookup(table, row, column, nsys_id, out)) return {};
    out = trace::StringTable::kEmpty;
    out_.import_stats.notUnderstood(fmt::format("table '{}' column '{}' ids missing from {} (left unnamed)", table,
                                                column, kStrings),
                                    rowPlace(table, row));
    return {};
  }

  // Reads a record's start and end (columns 0 and 1); false for one that ends before it starts,
  // which is counted and left out.
  bool interval(std::string_view table, std::int64_t row, const Statement& s, std::int64_t& start_ns,
                std::int64_t& end_ns) {
    start_ns = s.int64(0);
    end_ns = s.int64(1);
    if (!intervalReadable(table, row, start_ns, end_ns, out_.import_stats)) return false;
    last_ns_ = std::max(last_ns_, end_ns);
    return true;
  }

  Status readStrings() { return strings_.load(db_, kStrings, "id", out_.strings); }

  Status readDevices() {
    if (!db_.hasTable(kGpus)) return {};
    const NsysColumns c(db_, kGpus, {"id", "name"},
                    {"cuDevice", "computeMajor", "computeMinor", "smCount", "totalMemory", "clockRate",
                     "memoryBandwidth"});
    return forEachRow(db_, kGpus, c.names(), [&](std::int64_t, Statement& s) -> Status {
      // Kernels name their device by CUDA ordinal; Nsight's own GPU id is the fallback.
      const std::uint32_t id = deviceOrdinal(s, c["cuDevice"], s.int64(c["id"]));
      for (const trace::Device& known : out_.devices) {
        if (known.id == id) return {};  // one row per VM that saw the GPU; keep the first
      }
      trace::Device& d = out_.devices.emplace_back();
      d.id = id;
      d.name = out_.strings.intern(s.text(c["name"]));
      d.compute_major = static_cast<std::int32_t>(valueOr(s, c["computeMajor"], 0));
      d.compute_minor = static_cast<std::int32_t>(valueOr(s, c["computeMinor"], 0));
      d.sm_count = static_cast<std::int32_t>(valueOr(s, c["smCount"], 0));
      d.total_memory_bytes = static_cast<std::uint64_t>(valueOr(s, c["totalMemory"], 0));
      // The peak SM clock in Hz and the DRAM bandwidth in bytes per second (0: not recorded).
      d.sm_clock_khz = std::max<std::int64_t>(0, valueOr(s, c["clockRate"], 0)) / 1000;
      d.memory_bandwidth_bytes_per_s = static_cast<std::uint64_t>(std::max<std::int64_t>(0, valueOr(s, c["memoryBandwidth"], 0)));
      return {};
    });
  }

  Status readKernels() {
    if (!db_.hasTable(kKernels)) return {};
    // A kernel's launch configuration is optional: trimmed exports keep only times and names.
    const NsysColumns c(db_, kKernels, {"start", "end"},
                    {"deviceId", "streamId", "correlationId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                     "staticSharedMemory", "dynamicSharedMemory", "demangledName", "shortName", "mangledName",
                     "globalPid"});
    static constexpr std::array<std::string_view, 3> kGrid = {"gridX", "gridY", "gridZ"};
    static constexpr std::array<std::string_view, 3> kBlock = {"blockX", "blockY", "blockZ"};
    // The full name tells template arguments (tile sizes, dtypes) apart; the others are fallbacks.
    std::vector<std::string_view> name_columns;
    for (std::string_view column : {"demangledName", "shortName", "mangledName"}) {
      if (c[column] >= 0) name_columns.push_back(column);
    }
    if (name_columns.empty()) {
      return Error{fmt::format("{}: table '{}' has no column 'demangledName' (nor 'shortName' or "
                               "'mangledName')", db_.path(), kKernels)};
    }
    return forEachRow(db_, kKernels, c.names(), [&](std::int64_t row, Statement& s) -> Status {
      ++out_.import_stats.events_read;
      trace::Kernel k;
      if (!interval(kKernels, row, s, k.start_ns, k.end_ns)) return {};
      k.device = static_cast<std::uint32_t>(valueOr(s, c["deviceId"], 0));
      k.stream = static_cast<std::uint32_t>(valueOr(s, c["streamId"], 0));
      k.correlation_id = static_cast<std::uint64_t>(valueOr(s, c["correlationId"], 0));  // none: no launch
      for (std::size_t axis = 0; axis < 3; ++axis) {
        k.grid[axis] = static_cast<std::uint32_t>(valueOr(s, c[kGrid[axis]], 0));
        k.block[axis] = static_cast<std::uint32_t>(valueOr(s, c[kBlock[axis]], 0));
      }
      k.registers_per_thread = static_cast<std::uint32_t>(valueOr(s, c["registersPerThread"], 0));
      k.shared_memory_bytes = sharedMemoryBytes(kKernels, row, valueOr(s, c["staticSharedMemory"], 0),
                                                valueOr(s, c["dynamicSharedMemory"], 0), out_.import_stats);
      k.pid = pidOf(s, c["globalPid"]);
      const auto named = std::find_if(name_columns.begin(), name_columns.end(),
                                      [&](std::string_view column) { return has(s, c[column]); });
      if (named != name_columns.end()) {
        Status found = stringId(kKernels, row, *named, s.int64(c[*named]), k.name);
        if (!found) return found;
      }
      out_.kernels.push_back(k);
      ++out_.import_stats.events_imported;
      return {};
    });
  }

  Status readApi(const char* table) {
    if (!db_.hasTable(table)) return {};
    const bool driver_table = std::string_view(table) == kDriver;
    const NsysColumns c(db_, table, {"start", "end", "globalTid", "correlationId"},
                    {"nameId", "eventClass"});
    return forEachRow(db_, table, c.names(), [&](std::int64_t row, Statement& s) -> Status {
      ++out_.import_stats.events_read;
      const std::int64_t event_class = valueOr(s, c["eventClass"], -1);
      if (event_class == kClassCudaBacktrace) {
        // A call stack for a call that has its own row, not a call of its own.
        ++out_.import_stats.skipped["CUDA API backtrace records"];
        return {};
      }
      std::int64_t start = 0;
      std::int64_t end = 0;
      if (!interval(table, row, s, start, end)) return {};
      trace::StringId name = trace::StringTable::kEmpty;
      if (has(s, c["nameId"])) {
        Status named = stringId(table, row, "nameId", s.int64(c["nameId"]), name);
        if (!named) return named;
        name = out_.strings.intern(withoutVersionSuffix(out_.str(name)));
      }
      trace::ApiKind api = trace::ApiKind::kRuntime;
      if (driver_table || event_class == kClassCudaDriver || event_class == kClassCudaEglDriver) {
        api = trace::ApiKind::kDriver;
      } else if (event_class != kClassCudaRuntime) {
        // No class to go by: CUDA names runtime calls cuda*, driver calls cu*.
        const std::string_view text = out_.str(name);
        if (text.starts_with("cu") && !text.starts_with("cuda")) api = trace::ApiKind::kDriver;
      }
      if (name == trace::StringTable::kEmpty) {  // an export without nameId
        name = out_.strings.intern(api == trace::ApiKind::kRuntime ? "CUDA runtime call"
                                                                   : "CUDA driver call");
      }
      const NsysThreadId thread = decodeGlobalTid(s.int64(2));
      out_.launches.push_back({.start_ns = start, .end_ns = end,
                               .correlation_id = static_cast<std::uint64_t>(s.int64(3)), .name = name,
                               .thread = out_.threadIndex(thread.pid, thread.tid), .api = api});
      ++out_.import_stats.events_imported;
      return {};
    });
  }

  Status readMemoryOps(const char* table) {
    if (!db_.hasTable(table)) return {};
    const bool is_memcpy = std::string_view(table) == kMemcpy;
    const NsysColumns c =
        is_memcpy ? NsysColumns(db_, table, {"start", "end", "deviceId", "streamId", "correlationId", "bytes",
                                             "copyKind"}, {"srcKind", "dstKind", "globalPid"})
                  : NsysColumns(db_, table, {"start", "end", "deviceId", "streamId", "correlationId", "bytes"},
                                {"memKind", "globalPid"});
    return forEachRow(db_, table, c.names(), [&](std::int64_t row, Statement& s) -> Status {
      ++out_.import_stats.events_read;
      trace::MemoryOp m;
      if (!interval(table, row, s, m.start_ns, m.end_ns)) return {};
      m.device = static_cast<std::uint32_t>(s.int64(2));
      m.stream = static_cast<std::uint32_t>(s.int64(3));
      m.correlation_id = static_cast<std::uint64_t>(s.int64(4));
      m.bytes = byteCount(table, row, s.int64(5), out_.import_stats);
      m.pid = pidOf(s, c["globalPid"]);
      // A NULL kind is unknown, not 0 (which Nsight uses for pageable).
      if (is_memcpy) {
        m.kind = trace::MemoryOpKind::kMemcpy;
        m.direction = copyDirectionFromNsys(s.int64(6));
        if (has(s, c["srcKind"])) m.src_kind = memoryKindFromNsys(s.int64(c["srcKind"]));
        if (has(s, c["dstKind"])) m.dst_kind = memoryKindFromNsys(s.int64(c["dstKind"]));
      } else {
        m.kind = trace::MemoryOpKind::kMemset;
        if (has(s, c["memKind"])) m.dst_kind = memoryKindFromNsys(s.int64(c["memKind"]));
      }
      out_.memory_ops.push_back(m);
      ++out_.import_stats.events_imported;
      return {};
    });
  }

  Status readSynchronization() {
    if (!db_.hasTable(kSync)) return {};
    const NsysColumns c(db_, kSync, {"start", "end", "deviceId", "streamId", "correlationId", "syncType"},
                    {"globalPid"});
    return forEachRow(db_, kSync, c.names(), [&](std::int64_t row, Statement& s) -> Status {
      ++out_.import_stats.events_read;
      trace::Synchronization y;
      if (!interval(kSync, row, s, y.start_ns, y.end_ns)) return {};
      y.device = static_cast<std::uint32_t>(s.int64(2));
      y.stream = static_cast<std::uint32_t>(s.int64(3));  // -1: context-wide, no stream
      y.correlation_id = static_cast<std::uint64_t>(s.int64(4));
      y.kind = syncKindFromCupti(s.int64(5));  // ENUM_CUPTI_SYNC_TYPE uses CUPTI's numbers
      y.pid = pidOf(s, c["globalPid"]);
      out_.synchronizations.push_back(y);
      ++out_.import_stats.events_imported;
      return {};
    });
  }

  // The message of an NVTX event: inline text, or a registered string (nvtxDomainRegisterString)
  // through textId. Inline text wins because old exports wrote 0, not NULL, into unused columns.
  Status nvtxText(const NsysColumns& c, std::int64_t row, Statement& s, trace::StringId& out) {
    if (has(s, c["text"]) && !s.text(c["text"]).empty()) {
      out = out_.strings.intern(s.text(c["text"]));
      return {};
    }
    if (has(s, c["textId"])) return stringId(kNvtx, row, "textId", s.int64(c["textId"]), out);
    return {};
  }

  Status readNvtx() {
    if (!db_.hasTable(kNvtx)) return {};
    const NsysColumns c(db_, kNvtx, {"start", "end", "eventType", "globalTid"}, {"text", "textId", "domainId", "category"});
    // Domains are named by their creation events; ranges name them by id (0: the default one).
    std::unordered_map<std::int64_t, trace::StringId> domain_names;
    std::vector<std::pair<std::size_t, std::int64_t>> range_domains;  // (index into out_.ranges, domainId)
    Status status = forEachRow(db_, kNvtx, c.names(), [&](std::int64_t row, Statement& s) -> Status {
      ++out_.import_stats.events_read;
      const std::int64_t type = s.int64(2);
      switch (type) {
        case kNvtxMark: case kNvtxPushPopRange: case kNvtxStartEndRange: break;
        case kNvtxCategory: ++out_.import_stats.skipped["NVTX category names"]; return {};
        case kNvtxThread: ++out_.import_stats.skipped["NVTX thread names"]; return {};
        case kNvtxDomainCreate: {
          ++out_.import_stats.skipped["NVTX domain creations"];
          trace::StringId domain = trace::StringTable::kEmpty;
          if (Status named = nvtxText(c, row, s, domain); !named) return named;
          if (has(s, c["domainId"])) domain_names[s.int64(c["domainId"])] = domain;
          return {};
        }
        case kNvtxDomainDestroy: ++out_.import_stats.skipped["NVTX domain destructions"]; return {};
        default:
          out_.import_stats.notUnderstood(fmt::format("NVTX events of type {}", type), rowPlace(kNvtx, row));
          return {};
      }
      trace::StringId name = trace::StringTable::kEmpty;
      if (Status named = nvtxText(c, row, s, name); !named) return named;
      const NsysThreadId thread = decodeGlobalTid(s.int64(3));
      const std::int64_t start = s.int64(0);
      const bool ended = type != kNvtxMark && !s.isNull(1) && s.int64(1) >= start;
      const std::int64_t end = ended ? s.int64(1) : start;  // a mark is a range of no length
      out_.ranges.push_back({.start_ns = start, .end_ns = end, .name = name,
                             .thread = out_.threadIndex(thread.pid, thread.tid),
                             .kind = trace::RangeKind::kAnnotation,
                             .category = static_cast<std::uint32_t>(valueOr(s, c["category"], 0))});
      if (valueOr(s, c["domainId"], 0) != 0) range_domains.emplace_back(out_.ranges.size() - 1, s.int64(c["domainId"]));
      last_ns_ = std::max(last_ns_, end);
      if (type != kNvtxMark && !ended) {
        // Pushed or started but not ended before recording stopped: kept, closed below.
        unterminated_.push_back(out_.ranges.size() - 1);
        out_.import_stats.notUnderstood(kUnterminated, rowPlace(kNvtx, row));
        return {};
      }
      ++out_.import_stats.events_imported;
      return {};
    });
    if (!status) return status;
    for (const auto& [index, domain_id] : range_domains) {
      const auto found = domain_names.find(domain_id);
      if (found != domain_names.end()) out_.ranges[index].domain = found->second;
    }
    return {};
  }

  // Thread names are metadata of threads that have events, not events themselves.
  Status nameThreads() {
    if (!db_.hasTable(kThreadNames) || out_.threads.empty()) return {};
    const auto nameThread = [&](std::int64_t row, Statement& s) -> Status {
      const NsysThreadId id = decodeGlobalTid(s.int64(1));
      for (trace::Thread& thread : out_.threads) {
        if (thread.pid == id.pid && thread.tid == id.tid) {
          return stringId(kThreadNames, row, "nameId", s.int64(0), thread.name);
        }
      }
      return {};
    };
    return forEachRow(db_, kThreadNames, {"nameId", "globalTid"}, nameThread);
  }

  SqliteDatabase& db_;
  trace::Trace& out_;
  ForeignStrings& strings_;
  std::int64_t last_ns_ = 0;  // the latest time seen: where ranges never closed end
  std::vector<std::size_t> unterminated_;  // indices into out_.ranges
};

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

}  // namespace

bool isNsightSystemsDatabase(SqliteDatabase& db) {
  return db.hasTable(kStrings) && (db.hasTable(kKernels) || db.hasTable(kNvtx) || db.hasTable(kGpus));
}

trace::Result<trace::Trace> importNsightSystems(SqliteDatabase& db) {
  trace::Trace out;
  out.format = trace::TraceFormat::kNsightSystems;
  out.source_format = trace::TraceFormat::kNsightSystems;
  out.format_detail = formatDetail(db);
  out.epoch_offset_ns = sessionStartEpochNs(db);
  ForeignStrings strings;
  NsysReader host(db, out, strings);
  if (Status status = host.readShared(); !status) return status.error();
  trace::Trace gpu;
  std::int64_t gpu_last_ns = 0;
  const Status status = readGpuAndHostAtOnce(
      db,
      [&](SqliteDatabase& connection) {
        NsysReader gpu_reader(connection, gpu, strings);
        const Status read = gpu_reader.readGpuTables();
        gpu_last_ns = gpu_reader.lastNs();
        return read;
      },
      [&] { return host.readHostTables(); });
  if (!status) return status.error();
  host.closeUnterminatedRanges(std::max(host.lastNs(), gpu_last_ns));
  takeGpuRecords(std::move(gpu), out);
  // After the API calls: each allocation takes the thread of the call that made it.
  if (Status read = readCudaMemoryUsage(db, out); !read) return read.error();
  if (Status read = readGpuMetrics(db, out); !read) return read.error();
  out.sortByTime();
  normaliseRanges(out);
  return out;
}

}  // namespace ampscope::analyzer::import
