#include "analyzer/import/nsight/nsys_event_tables.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/import/nsight/cupti_enums.h"
#include "analyzer/import/nsight/nsys_row_conditions.h"
#include "trace/db/table_page_scan.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Error;
using trace::Status;
using trace::db::SqliteDatabase;
using trace::db::TablePageScan;

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

// The rows of one slice, read in rowid order: readRow(rowid, row) for each, `row` a page scan's
// or a statement's (as output.source() says and the pages allow).
template <typename Record, typename ReadRow>
Status forEachSliceRow(SqliteDatabase& connection, std::string_view table, const NsysColumns& c, RowidSlice slice,
                       const RowCondition& condition, const SliceOutput<Record>& output, ReadRow readRow) {
  if (output.source() == RowSource::kPagesFirst && (condition.sql.empty() || condition.keeps)) {
    // kEveryRowid's end is the largest rowid, included; a slice's end is not.
    const std::int64_t last = slice.end == kEveryRowid.end ? slice.end : slice.end - 1;
    if (std::optional<TablePageScan> scan = TablePageScan::open(connection, table, c.names(), slice.first, last)) {
      Status read;
      while (read && scan->step()) {
        if (condition.keeps && !condition.keeps(*scan)) continue;
        read = readRow(scan->rowid(), *scan);
      }
      if (scan->gaveUp()) output.notePagesGaveUp();
      return scan->gaveUp() ? Status{} : read;
    }
  }
  auto statement = selectSlice(connection, table, c.names(), slice, condition);
  if (!statement) return statement.error();
  const int rowid = static_cast<int>(c.names().size());
  while (statement->step()) {
    if (Status read = readRow(statement->int64(rowid), *statement); !read) return read;
  }
  return statement->status();
}

// The slice's index of a thread; threads come in runs, so the last one found is tried first.
template <typename Record>
trace::Index sliceThread(TableSlice<Record>& out, std::int64_t global_tid, std::int64_t start_ns) {
  const NsysThreadId id = decodeGlobalTid(global_tid);
  std::size_t& last = out.last_thread;
  if (last < out.threads.size() && out.threads[last].pid == id.pid && out.threads[last].tid == id.tid) {
    out.threads[last].first_start_ns = std::min(out.threads[last].first_start_ns, start_ns);
    return static_cast<trace::Index>(last);
  }
  for (std::size_t i = 0; i < out.threads.size(); ++i) {
    if (out.threads[i].pid == id.pid && out.threads[i].tid == id.tid) {
      out.threads[i].first_start_ns = std::min(out.threads[i].first_start_ns, start_ns);
      last = i;
      return static_cast<trace::Index>(i);
    }
  }
  out.threads.push_back({id.pid, id.tid, start_ns});
  last = out.threads.size() - 1;
  return static_cast<trace::Index>(last);
}

// A name by its id in StringIds. An id the table lacks leaves the name empty: counted with its
// place, the record kept.
trace::StringId stringId(const ForeignStrings& ids, std::string_view table, std::int64_t row, std::string_view column,
                         std::int64_t nsys_id, trace::ImportStats& stats) {
  trace::StringId out = trace::StringTable::kEmpty;
  if (ids.lookup(table, row, column, nsys_id, out)) return out;
  stats.notUnderstood(fmt::format("table '{}' column '{}' ids missing from StringIds (left unnamed)", table, column),
                      rowPlace(table, row));
  return trace::StringTable::kEmpty;
}

// Reads a record's start and end (columns 0 and 1); false for one that ends before it starts,
// which is counted and left out.
template <typename Record, typename Row>
bool interval(std::string_view table, std::int64_t row, const Row& s, TableSlice<Record>& out,
              std::int64_t& start_ns, std::int64_t& end_ns) {
  start_ns = s.int64(0);
  end_ns = s.int64(1);
  if (!intervalReadable(table, row, start_ns, end_ns, out.stats)) return false;
  out.last_ns = std::max(out.last_ns, end_ns);
  return true;
}

}  // namespace

KernelTable::KernelTable(SqliteDatabase& db, NsysReadScope scope)
    : scope_(scope),
      // A kernel's launch configuration is optional: trimmed exports keep only times and names.
      c_(db, kNsysKernels, {"start", "end"},
         {"deviceId", "streamId", "correlationId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
          "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "demangledName", "shortName",
          "mangledName", "globalPid"}),
      condition_(scopeCondition(scope, c_, "globalPid", WindowTest::kOverlaps)), device_(c_["deviceId"]),
      stream_(c_["streamId"]), correlation_(c_["correlationId"]), registers_(c_["registersPerThread"]),
      static_shared_(c_["staticSharedMemory"]), dynamic_shared_(c_["dynamicSharedMemory"]), pid_(c_["globalPid"]),
      grid_{c_["gridX"], c_["gridY"], c_["gridZ"]}, block_{c_["blockX"], c_["blockY"], c_["blockZ"]} {
  // The full name tells template arguments (tile sizes, dtypes) apart; the others are fallbacks.
  for (std::string_view column : {"demangledName", "shortName", "mangledName"}) {
    if (c_[column] >= 0) name_columns_.emplace_back(c_[column], column);
  }
}

trace::Result<KernelTable> KernelTable::make(SqliteDatabase& db, NsysReadScope scope) {
  KernelTable table(db, scope);
  if (table.name_columns_.empty()) {
    return Error{fmt::format("{}: table '{}' has no column 'demangledName' (nor 'shortName' or 'mangledName')",
                             db.path(), kNsysKernels)};
  }
  return table;
}

Status KernelTable::read(SqliteDatabase& connection, RowidSlice slice, const SliceOutput<trace::Kernel>& output) const {
  output.reserve(slice);
  return forEachSliceRow(connection, kNsysKernels, c_, slice, condition_, output, [&](std::int64_t row, const auto& s) -> Status {
    const std::optional<std::size_t> to = output.route(s, pid_);
    if (!to) return {};
    TableSlice<trace::Kernel>& out = output[*to];
    ++out.stats.events_read;
    trace::Kernel k;
    if (!interval(kNsysKernels, row, s, out, k.start_ns, k.end_ns)) return {};
    k.device = static_cast<std::uint32_t>(valueOr(s, device_, 0));
    k.stream = static_cast<std::uint32_t>(valueOr(s, stream_, 0));
    k.correlation_id = static_cast<std::uint64_t>(valueOr(s, correlation_, 0));  // none: no launch
    for (std::size_t axis = 0; axis < 3; ++axis) {
      k.grid[axis] = static_cast<std::uint32_t>(valueOr(s, grid_[axis], 0));
      k.block[axis] = static_cast<std::uint32_t>(valueOr(s, block_[axis], 0));
    }
    k.registers_per_thread = static_cast<std::uint32_t>(valueOr(s, registers_, 0));
    k.shared_memory_bytes = sharedMemoryBytes(kNsysKernels, row, valueOr(s, static_shared_, 0),
                                              valueOr(s, dynamic_shared_, 0), out.stats);
    k.pid = pidOf(s, pid_);
    for (const auto& [position, column] : name_columns_) {
      const std::optional<std::int64_t> id = valueIfAny(s, position);
      if (!id) continue;
      k.name = stringId(scope_.ids, kNsysKernels, row, column, *id, out.stats);
      break;
    }
    out.rows.push_back(k);
    ++out.stats.events_imported;
    return {};
  });
}

ApiTable::ApiTable(SqliteDatabase& db, const char* table, NsysReadScope scope)
    : table_(table), driver_table_(std::string_view(table) == kNsysDriver), scope_(scope),
      c_(db, table, {"start", "end", "globalTid", "correlationId"}, {"nameId", "eventClass"}),
      condition_(scopeCondition(scope, c_, "globalTid", WindowTest::kOverlaps)), name_(c_["nameId"]),
      event_class_(c_["eventClass"]) {}

Status ApiTable::read(SqliteDatabase& connection, RowidSlice slice, const SliceOutput<trace::LaunchCall>& output) const {
  output.reserve(slice);
  // A function's name without its version, by its id in StringIds: a few dozen functions make
  // millions of calls. One map per output, since each names its own strings.
  std::vector<std::unordered_map<trace::StringId, trace::StringId>> unversioned(output.size());
  const auto nameOf = [&](trace::StringId versioned, std::size_t to, TableSlice<trace::LaunchCall>& out) {
    const auto [at, fresh] = unversioned[to].try_emplace(versioned, versioned);
    if (fresh) {
      const std::string_view text = scope_.strings.view(versioned);
      const std::string_view bare = withoutVersionSuffix(text);
      if (bare.size() != text.size()) at->second = kSliceName | out.names.intern(bare);
    }
    return at->second;
  };
  const auto text = [&](trace::StringId name, const TableSlice<trace::LaunchCall>& out) {
    return (name & kSliceName) != 0 ? out.names.view(name & ~kSliceName) : scope_.strings.view(name);
  };
  return forEachSliceRow(connection, table_, c_, slice, condition_, output, [&](std::int64_t row, const auto& s) -> Status {
    const std::optional<std::size_t> to = output.route(s, 2);  // globalTid
    if (!to) return {};
    TableSlice<trace::LaunchCall>& out = output[*to];
    ++out.stats.events_read;
    const std::int64_t event_class = valueOr(s, event_class_, -1);
    if (event_class == kClassCudaBacktrace) {
      // A call stack for a call that has its own row, not a call of its own.
      ++out.stats.skipped["CUDA API backtrace records"];
      return {};
    }
    std::int64_t start = 0;
    std::int64_t end = 0;
    if (!interval(table_, row, s, out, start, end)) return {};
    trace::StringId name = trace::StringTable::kEmpty;
    if (const std::optional<std::int64_t> name_id = valueIfAny(s, name_)) {
      name = stringId(scope_.ids, table_, row, "nameId", *name_id, out.stats);
      if (name != trace::StringTable::kEmpty) name = nameOf(name, *to, out);
    }
    trace::ApiKind api = trace::ApiKind::kRuntime;
    if (driver_table_ || event_class == kClassCudaDriver || event_class == kClassCudaEglDriver) {
      api = trace::ApiKind::kDriver;
    } else if (event_class != kClassCudaRuntime) {
      // No class to go by: CUDA names runtime calls cuda*, driver calls cu*.
      const std::string_view called = text(name, out);
      if (called.starts_with("cu") && !called.starts_with("cuda")) api = trace::ApiKind::kDriver;
    }
    if (name == trace::StringTable::kEmpty) {  // an export without nameId
      name = kSliceName | out.names.intern(api == trace::ApiKind::kRuntime ? "CUDA runtime call" : "CUDA driver call");
    }
    out.rows.push_back({.start_ns = start, .end_ns = end, .correlation_id = static_cast<std::uint64_t>(s.int64(3)),
                        .name = name, .thread = sliceThread(out, s.int64(2), start), .api = api});
    ++out.stats.events_imported;
    return {};
  });
}

MemoryOpTable::MemoryOpTable(SqliteDatabase& db, const char* table, const NsysReadScope& scope)
    : table_(table), memcpy_(std::string_view(table) == kNsysMemcpy),
      c_(memcpy_ ? NsysColumns(db, table, {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind"},
                               {"srcKind", "dstKind", "globalPid"})
                 : NsysColumns(db, table, {"start", "end", "deviceId", "streamId", "correlationId", "bytes"},
                               {"memKind", "globalPid"})),
      condition_(scopeCondition(scope, c_, "globalPid", WindowTest::kOverlaps)), src_kind_(c_["srcKind"]),
      dst_kind_(c_["dstKind"]),
      mem_kind_(c_["memKind"]), pid_(c_["globalPid"]) {}

Status MemoryOpTable::read(SqliteDatabase& connection, RowidSlice slice,
                           const SliceOutput<trace::MemoryOp>& output) const {
  output.reserve(slice);
  return forEachSliceRow(connection, table_, c_, slice, condition_, output, [&](std::int64_t row, const auto& s) -> Status {
    const std::optional<std::size_t> to = output.route(s, pid_);
    if (!to) return {};
    TableSlice<trace::MemoryOp>& out = output[*to];
    ++out.stats.events_read;
    trace::MemoryOp m;
    if (!interval(table_, row, s, out, m.start_ns, m.end_ns)) return {};
    m.device = static_cast<std::uint32_t>(s.int64(2));
    m.stream = static_cast<std::uint32_t>(s.int64(3));
    m.correlation_id = static_cast<std::uint64_t>(s.int64(4));
    m.bytes = byteCount(table_, row, s.int64(5), out.stats);
    m.pid = pidOf(s, pid_);
    // A NULL kind is unknown, not 0 (which Nsight uses for pageable).
    if (memcpy_) {
      m.kind = trace::MemoryOpKind::kMemcpy;
      m.direction = copyDirectionFromNsys(s.int64(6));
      if (has(s, src_kind_)) m.src_kind = memoryKindFromNsys(s.int64(src_kind_));
      if (has(s, dst_kind_)) m.dst_kind = memoryKindFromNsys(s.int64(dst_kind_));
    } else {
      m.kind = trace::MemoryOpKind::kMemset;
      if (has(s, mem_kind_)) m.dst_kind = memoryKindFromNsys(s.int64(mem_kind_));
    }
    out.rows.push_back(m);
    ++out.stats.events_imported;
    return {};
  });
}

SyncTable::SyncTable(SqliteDatabase& db, const NsysReadScope& scope)
    : c_(db, kNsysSync, {"start", "end", "deviceId", "streamId", "correlationId", "syncType"}, {"globalPid"}),
      condition_(scopeCondition(scope, c_, "globalPid", WindowTest::kOverlaps)), pid_(c_["globalPid"]) {}

Status SyncTable::read(SqliteDatabase& connection, RowidSlice slice,
                       const SliceOutput<trace::Synchronization>& output) const {
  output.reserve(slice);
  return forEachSliceRow(connection, kNsysSync, c_, slice, condition_, output, [&](std::int64_t row, const auto& s) -> Status {
    const std::optional<std::size_t> to = output.route(s, pid_);
    if (!to) return {};
    TableSlice<trace::Synchronization>& out = output[*to];
    ++out.stats.events_read;
    trace::Synchronization y;
    if (!interval(kNsysSync, row, s, out, y.start_ns, y.end_ns)) return {};
    y.device = static_cast<std::uint32_t>(s.int64(2));
    y.stream = static_cast<std::uint32_t>(s.int64(3));  // -1: context-wide, no stream
    y.correlation_id = static_cast<std::uint64_t>(s.int64(4));
    y.kind = syncKindFromCupti(s.int64(5));  // ENUM_CUPTI_SYNC_TYPE uses CUPTI's numbers
    y.pid = pidOf(s, pid_);
    out.rows.push_back(y);
    ++out.stats.events_imported;
    return {};
  });
}

NvtxTable::NvtxTable(SqliteDatabase& db, NsysReadScope scope)
    : scope_(scope),
      c_(db, kNsysNvtx, {"start", "end", "eventType", "globalTid"}, {"text", "textId", "domainId", "category"}),
      // Names of categories, threads and domains hold whatever their time; a range never ended
      // (no end, or one before its start: read as never ended below) lasts to the end of the
      // trace, a mark (no end either) is an instant.
      condition_(scopeCondition(scope, c_, "globalTid", WindowTest::kNvtx)),
      text_(c_["text"]), text_id_(c_["textId"]), domain_(c_["domainId"]), category_(c_["category"]) {}

Status NvtxTable::read(SqliteDatabase& connection, RowidSlice slice, const SliceOutput<NvtxRow>& output) const {
  output.reserve(slice);
  // The message of an NVTX event: inline text, or a registered string (nvtxDomainRegisterString)
  // through textId. Inline text wins because old exports wrote 0, not NULL, into unused columns.
  const auto message = [&](std::int64_t row, const auto& s, TableSlice<NvtxRow>& out) -> trace::StringId {
    if (text_ >= 0) {
      const std::string_view text = s.text(text_);  // NULL reads as empty
      if (!text.empty()) return kSliceName | out.names.intern(text);
    }
    if (const std::optional<std::int64_t> text_id = valueIfAny(s, text_id_)) {
      return stringId(scope_.ids, kNsysNvtx, row, "textId", *text_id, out.stats);
    }
    return trace::StringTable::kEmpty;
  };
  return forEachSliceRow(connection, kNsysNvtx, c_, slice, condition_, output, [&](std::int64_t row, const auto& s) -> Status {
    const std::optional<std::size_t> to = output.route(s, 3);  // globalTid
    if (!to) return {};
    TableSlice<NvtxRow>& out = output[*to];
    ++out.stats.events_read;
    const std::int64_t type = s.int64(2);
    switch (type) {
      case kNvtxMark: case kNvtxPushPopRange: case kNvtxStartEndRange: break;
      case kNvtxCategory: ++out.stats.skipped["NVTX category names"]; return {};
      case kNvtxThread: ++out.stats.skipped["NVTX thread names"]; return {};
      case kNvtxDomainCreate: {
        ++out.stats.skipped["NVTX domain creations"];
        const trace::StringId domain = message(row, s, out);
        if (has(s, domain_)) out.domain_names.emplace_back(s.int64(domain_), domain);
        return {};
      }
      case kNvtxDomainDestroy: ++out.stats.skipped["NVTX domain destructions"]; return {};
      default:
        out.stats.notUnderstood(fmt::format("NVTX events of type {}", type), rowPlace(kNsysNvtx, row));
        return {};
    }
    const trace::StringId name = message(row, s, out);
    const std::int64_t start = s.int64(0);
    const std::optional<std::int64_t> recorded_end = valueIfAny(s, 1);
    const bool ended = type != kNvtxMark && recorded_end && *recorded_end >= start;
    const std::int64_t end = ended ? *recorded_end : start;  // a mark is a range of no length
    out.rows.push_back({.start_ns = start, .end_ns = end, .name = name, .thread = sliceThread(out, s.int64(3), start),
                        .category = static_cast<std::uint32_t>(valueOr(s, category_, 0))});
    const auto index = static_cast<std::uint32_t>(out.rows.size() - 1);
    if (const std::int64_t domain = valueOr(s, domain_, 0); domain != 0) out.range_domains.emplace_back(index, domain);
    out.last_ns = std::max(out.last_ns, end);
    if (type != kNvtxMark && !ended) {
      // Pushed or started but not ended before recording stopped: kept, closed at the trace's end.
      out.unterminated.push_back(index);
      out.stats.notUnderstood(kUnterminated, rowPlace(kNsysNvtx, row));
      return {};
    }
    ++out.stats.events_imported;
    return {};
  });
}

}  // namespace ampscope::analyzer::import
