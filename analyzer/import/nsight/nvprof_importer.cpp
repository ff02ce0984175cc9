#include "analyzer/import/nsight/nvprof_importer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "analyzer/import/nsight/cupti_enums.h"
#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/normalise/range_normaliser.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Error;
using trace::Status;
using trace::db::SqliteDatabase;
using trace::db::Statement;
using trace::db::forEachRow;

constexpr const char* kConcurrentKernels = "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL";
constexpr const char* kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr const char* kUnterminated = "ranges without an end (kept, closed at the end of the trace)";

std::int64_t threadIdFromCupti(std::int64_t raw) {
  // nvprof stores 32-bit thread ids as signed integers; markers carry them unsigned.
  return static_cast<std::int64_t>(static_cast<std::uint32_t>(raw));
}

class NvprofReader {
 public:
  NvprofReader(SqliteDatabase& db, trace::Trace& out, ForeignStrings& strings) : db_(db), out_(out), strings_(strings) {}

  // The profile's strings and devices: before either side's tables.
  Status readShared() {
    if (Status s = readStrings(); !s) return s;
    return readDevices();
  }
  // The GPU's tables and the host's share nothing but the string lookup: two readers on two
  // connections read them at once (readGpuAndHostAtOnce).
  Status readGpuTables() {
    for (const char* table : {kConcurrentKernels, kKernels}) {
      if (db_.hasTable(table)) {
        if (Status s = readKernels(table); !s) return s;
      }
    }
    if (Status s = readMemcpy(); !s) return s;
    if (Status s = readMemset(); !s) return s;
    return readSynchronization();
  }
  // The latest time this reader has seen.
  std::int64_t lastNs() const { return last_ns_; }
  // Ranges started but never ended close at last_ns: the end of the whole trace, known once both
  // sides are read.
  void closeUnterminatedRanges(std::int64_t last_ns) {
    for (std::size_t index : unterminated_) {
      trace::Range& r = out_.ranges[index];
      r.end_ns = std::max(r.start_ns, last_ns);
    }
  }

  Status readHostTables() {
    if (Status s = readApi("CUPTI_ACTIVITY_KIND_RUNTIME", trace::ApiKind::kRuntime); !s) return s;
    if (Status s = readApi("CUPTI_ACTIVITY_KIND_DRIVER", trace::ApiKind::kDriver); !s) return s;
    return readMarkers();
  }

 private:
  // A name by its id in StringTable. An id the table lacks leaves the name empty: counted with
  // its place, the record kept.
  Status stringId(std::string_view table, std::int64_t row, std::string_view column,
                  std::int64_t nvprof_id, trace::StringId& out) {
    if (strings_.lookup(table, row, column, nvprof_id, out)) return {};
    out = trace::StringTable::kEmpty;
    out_.import_stats.notUnderstood(fmt::format("table '{}' column '{}' ids missing from StringTable (left unnamed)",
                                                table, column),
                                    rowPlace(table, row));
    return {};
  }

  Status readStrings() { return strings_.load(db_, "StringTable", "_id_", out_.strings); }

  Status readDevices() {
    constexpr const char* kTable = "CUPTI_ACTIVITY_KIND_DEVICE";
    if (!db_.hasTable(kTable)) return {};
    std::vector<std::string_view> columns = {"id", "name", "computeCapabilityMajor", "computeCapabilityMinor",
                                             "numMultiprocessors", "globalMemorySize"};
    // CUPTI's peak SM clock (kHz) and DRAM bandwidth (KB/s): what derived peaks rest on where the
    // device table has no row for the GPU. Optional: a file without them reads them as unknown.
    const bool has_clock = db_.hasColumn(kTable, "coreClockRate") && db_.hasColumn(kTable, "globalMemoryBandwidth");
    if (has_clock) {
      columns.push_back("coreClockRate");
      columns.push_back("globalMemoryBandwidth");
    }
    return forEachRow(db_, kTable, columns,
                      [&](std::int64_t row, Statement& s) -> Status {
                        trace::Device& d = out_.devices.emplace_back();
                        d.id = static_cast<std::uint32_t>(s.int64(0));
                        d.compute_major = static_cast<std::int32_t>(s.int64(2));
                        d.compute_minor = static_cast<std::int32_t>(s.int64(3));
                        d.sm_count = static_cast<std::int32_t>(s.int64(4));
                        d.total_memory_bytes = static_cast<std::uint64_t>(s.int64(5));
                        if (has_clock) readClockAndBandwidth(row, s.int64(6), s.int64(7), d);
                        return stringId("CUPTI_ACTIVITY_KIND_DEVICE", row, "name", s.int64(1), d.name);
                      });
  }

  // kHz and KB/s as CUPTI gives them; 0 means not recorded. A negative value, or a bandwidth
  // beyond 64 bits in bytes per second, is no rate: counted, and left unknown.
  void readClockAndBandwidth(std::int64_t row, std::int64_t clock_khz, std::int64_t bandwidth_kb_per_s,
                             trace::Device& d) {
    constexpr std::int64_t kLargestKbPerS = std::numeric_limits<std::int64_t>::max() / 1000;
    const bool clock_read = clock_khz >= 0;
    const bool bandwidth_read = bandwidth_kb_per_s >= 0 && bandwidth_kb_per_s <= kLargestKbPerS;
    d.sm_clock_khz = clock_read ? clock_khz : 0;
    d.memory_bandwidth_bytes_per_s = bandwidth_read ? static_cast<std::uint64_t>(bandwidth_kb_per_s) * 1000 : 0;
    if (!clock_read || !bandwidth_read) {
      out_.import_stats.notUnderstood(
          "table 'CUPTI_ACTIVITY_KIND_DEVICE' clock rates or bandwidths that are not a rate (left unknown)",
          rowPlace("CUPTI_ACTIVITY_KIND_DEVICE", row));
    }
  }

  // A record's start and end; false for one that ends before it starts, which is counted with
  // its row and left out. The latest end seen is where ranges never closed end.
  bool interval(std::string_view table, std::int64_t row, std::int64_t start_ns, std::int64_t end_ns) {
    if (!intervalReadable(table, row, start_ns, end_ns, out_.import_stats)) return false;
    last_ns_ = std::max(last_ns_, end_ns);
    return true;
  }

  Status readKernels(const char* table) {
    return forEachRow(db_, table,
                      {"start", "end", "deviceId", "streamId", "correlationId", "name", "gridX",
                       "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                       "staticSharedMemory", "dynamicSharedMemory"},
                      [&](std::int64_t row, Statement& s) -> Status {
                        ++out_.import_stats.events_read;
                        if (!interval(table, row, s.int64(0), s.int64(1))) return {};
                        trace::Kernel& k = out_.kernels.emplace_back();
                        k.start_ns = s.int64(0);
                        k.end_ns = s.int64(1);
                        k.device = static_cast<std::uint32_t>(s.int64(2));
                        k.stream = static_cast<std::uint32_t>(s.int64(3));
                        k.correlation_id = static_cast<std::uint64_t>(s.int64(4));
                        for (int axis = 0; axis < 3; ++axis) {
                          k.grid[static_cast<std::size_t>(axis)] = static_cast<std::uint32_t>(s.int64(6 + axis));
                          k.block[static_cast<std::size_t>(axis)] = static_cast<std::uint32_t>(s.int64(9 + axis));
                        }
                        k.registers_per_thread = static_cast<std::uint32_t>(s.int64(12));
                        k.shared_memory_bytes = sharedMemoryBytes(table, row, s.int64(13), s.int64(14), out_.import_stats);
                        ++out_.import_stats.events_imported;
                        return stringId(table, row, "name", s.int64(5), k.name);
                      });
  }

  Status readApi(const char* table, trace::ApiKind api) {
    if (!db_.hasTable(table)) return {};
    return forEachRow(db_, table, {"cbid", "start", "end", "processId", "threadId", "correlationId"},
                      [&](std::int64_t row, Statement& s) -> Status {
                        ++out_.import_stats.events_read;
                        if (!interval(table, row, s.int64(1), s.int64(2))) return {};
                        trace::LaunchCall& l = out_.launches.emplace_back();
                        l.cbid = static_cast<std::int32_t>(s.int64(0));
                        l.start_ns = s.int64(1);
                        l.end_ns = s.int64(2);
                        l.thread = out_.threadIndex(s.int64(3), threadIdFromCupti(s.int64(4)));
                        l.correlation_id = static_cast<std::uint64_t>(s.int64(5));
                        l.api = api;
                        l.name = out_.strings.intern(api == trace::ApiKind::kRuntime
                                                         ? runtimeApiName(l.cbid)
                                                         : driverApiName(l.cbid));
                        ++out_.import_stats.events_imported;
                        return {};
                      });
  }

  Status readMemcpy() {
    if (!db_.hasTable(kMemcpy)) return {};
    return forEachRow(db_, kMemcpy,
                      {"copyKind", "srcKind", "dstKind", "bytes", "start", "end", "deviceId",
                       "streamId", "correlationId"},
                      [&](std::int64_t row, Statement& s) -> Status {
                        ++out_.import_stats.events_read;
                        if (!interval(kMemcpy, row, s.int64(4), s.int64(5))) return {};
                        trace::MemoryOp& m = out_.memory_ops.emplace_back();
                        m.kind = trace::MemoryOpKind::kMemcpy;
                        m.direction = copyDirectionFromCupti(s.int64(0));
                        m.src_kind = memoryKindFromCupti(s.int64(1));
                        m.dst_kind = memoryKindFromCupti(s.int64(2));
                        m.bytes = byteCount(kMemcpy, row, s.int64(3), out_.import_stats);
                        m.start_ns = s.int64(4);
                        m.end_ns = s.int64(5);
                        m.device = static_cast<std::uint32_t>(s.int64(6));
                        m.stream = static_cast<std::uint32_t>(s.int64(7));
                        m.correlation_id = static_cast<std::uint64_t>(s.int64(8));
                        ++out_.import_stats.events_imported;
                        return {};
                      });
  }

  Status readMemset() {
    if (!db_.hasTable(kMemset)) return {};
    return forEachRow(db_, kMemset,
                      {"bytes", "start", "end", "deviceId", "streamId", "correlationId", "memoryKind"},
                      [&](std::int64_t row, Statement& s) -> Status {
                        ++out_.import_stats.events_read;
                        if (!interval(kMemset, row, s.int64(1), s.int64(2))) return {};
                        trace::MemoryOp& m = out_.memory_ops.emplace_back();
                        m.kind = trace::MemoryOpKind::kMemset;
                        m.bytes = byteCount(kMemset, row, s.int64(0), out_.import_stats);
                        m.start_ns = s.int64(1);
                        m.end_ns = s.int64(2);
                        m.device = static_cast<std::uint32_t>(s.int64(3));
                        m.stream = static_cast<std::uint32_t>(s.int64(4));
                        m.correlation_id = static_cast<std::uint64_t>(s.int64(5));
                        m.dst_kind = memoryKindFromCupti(s.int64(6));
                        ++out_.import_stats.events_imported;
                        return {};
                      });
  }

  Status readSynchronization() {
    if (!db_.hasTable(kSync)) return {};
    return forEachRow(db_, kSync, {"type", "start", "end", "correlationId", "streamId"},
                      [&](std::int64_t row, Statement& s) -> Status {
                        ++out_.import_stats.events_read;
                        if (!interval(kSync, row, s.int64(1), s.int64(2))) return {};
                        trace::Synchronization& y = out_.synchronizations.emplace_back();
                        y.kind = syncKindFromCupti(s.int64(0));
                        y.start_ns = s.int64(1);
                        y.end_ns = s.int64(2);
                        y.correlation_id = static_cast<std::uint64_t>(s.int64(3));
                        // -1 (0xffffffff) means "no stream": a context-wide synchronisation.
                        y.stream = static_cast<std::uint32_t>(s.int64(4));
                        ++out_.import_stats.events_imported;
                        return {};
                      });
  }

  struct OpenMarker {
    std::int64_t start_ns;
    trace::StringId text;
    trace::Index thread;
    std::int64_t row;  // its start's row
  };

  // The marker's text is kept as it is: the range normaliser reads PyProf's dicts and autograd's
  // "op, seq = N" markers for every format alike.
  void addRange(const OpenMarker& open, std::int64_t end_ns) {
    trace::Range& r = out_.ranges.emplace_back();
    r.start_ns = open.start_ns;
    r.end_ns = end_ns;
    r.thread = open.thread;
    r.kind = trace::RangeKind::kAnnotation;
    r.name = open.text;
  }

  Status readMarkers() {
    static constexpr std::string_view kMarkers = "CUPTI_ACTIVITY_KIND_MARKER";
    if (!db_.hasTable(kMarkers)) return {};
    std::unordered_map<std::int64_t, OpenMarker> open;
    Status status = forEachRow(
        db_, kMarkers, {"flags", "timestamp", "id", "objectKind", "objectId", "name"},
        [&](std::int64_t row, Statement& s) -> Status {
          ++out_.import_stats.events_read;
          const std::int64_t flags = s.int64(0);
          const std::int64_t timestamp = s.int64(1);
          if (flags & kMarkerEnd) {
            auto found = open.find(s.int64(2));
            if (found == open.end()) {
              out_.import_stats.notUnderstood("marker ends without a start", rowPlace(kMarkers, row));
              return {};
            }
            const OpenMarker started = found->second;
            open.erase(found);
            if (!interval(kMarkers, row, started.start_ns, timestamp)) return {};
            addRange(started, timestamp);
            ++out_.import_stats.events_imported;
            return {};
          }
          if (!(flags & (kMarkerStart | kMarkerInstantaneous))) {
            out_.import_stats.notUnderstood(fmt::format("markers with flags {}", flags), rowPlace(kMarkers, row));
            return {};
          }
          last_ns_ = std::max(last_ns_, timestamp);
          trace::StringId text = trace::StringTable::kEmpty;
          if (Status named = stringId(kMarkers, row, "name", s.int64(5), text); !named) {
            return named;
          }
          // objectId of a thread marker (objectKind 2) is a 12-byte struct: pid, tid, padding.
          std::int64_t pid = 0;
          std::int64_t tid = 0;
          const std::string_view object = s.text(4);
          if (s.int64(3) == 2 && object.size() >= 8) {
            std::uint32_t words[2];
            std::memcpy(words, object.data(), sizeof(words));
            pid = words[0];
            tid = words[1];
          }
          const OpenMarker marker{timestamp, text, out_.threadIndex(pid, tid), row};
          if (flags & kMarkerInstantaneous) {
            addRange(marker, timestamp);
            ++out_.import_stats.events_imported;
          } else {
            open.emplace(s.int64(2), marker);
          }
          return {};
        });
    if (!status) return status;
    // Ranges still open when recording stopped are kept; they end where the trace ends, known
    // once the GPU's tables are read too (closeUnterminatedRanges). Counted in row order, so
    // that the first place is the first such start in the file.
    std::vector<OpenMarker> unterminated;
    unterminated.reserve(open.size());
    for (const auto& [id, marker] : open) unterminated.push_back(marker);
    std::sort(unterminated.begin(), unterminated.end(),
              [](const OpenMarker& a, const OpenMarker& b) { return a.row < b.row; });
    for (const OpenMarker& marker : unterminated) {
      unterminated_.push_back(out_.ranges.size());
      addRange(marker, marker.start_ns);
      out_.import_stats.notUnderstood(kUnterminated, rowPlace(kMarkers, marker.row));
    }
    return {};
  }

  SqliteDatabase& db_;
  trace::Trace& out_;
  ForeignStrings& strings_;
  std::int64_t last_ns_ = 0;               // the latest time this reader has seen
  std::vector<std::size_t> unterminated_;  // indices into out_.ranges
};

}  // namespace

bool isNvprofDatabase(SqliteDatabase& db) {
  return db.hasTable("StringTable") && (db.hasTable(kConcurrentKernels) || db.hasTable(kKernels));
}

trace::Result<trace::Trace> importNvprof(SqliteDatabase& db) {
  trace::Trace out;
  out.format = trace::TraceFormat::kNvprof;
  out.source_format = trace::TraceFormat::kNvprof;
  out.format_detail = "nvprof SQLite profile";
  ForeignStrings strings;
  NvprofReader host(db, out, strings);
  if (Status status = host.readShared(); !status) return status.error();
  trace::Trace gpu;
  std::int64_t gpu_last_ns = 0;
  const Status status = readGpuAndHostAtOnce(
      db,
      [&](SqliteDatabase& connection) {
        NvprofReader gpu_reader(connection, gpu, strings);
        const Status read = gpu_reader.readGpuTables();
        gpu_last_ns = gpu_reader.lastNs();
        return read;
      },
      [&] { return host.readHostTables(); });
  if (!status) return status.error();
  host.closeUnterminatedRanges(std::max(host.lastNs(), gpu_last_ns));
  takeGpuRecords(std::move(gpu), out);
  // nvprof writes one file per profiled process (%p); its activity tables name no process.
  out.assignLaunchingProcesses();
  out.sortByTime();
  normaliseRanges(out);
  return out;
}

}  // namespace ampscope::analyzer::import
