#pragma once
// The readers of an Nsight Systems export's event tables: kernels, CUDA API calls, memory copies
// and sets, synchronisations, NVTX events. Each is made once for its table (which columns this
// export's version has) and then reads any slice of rowids (table_slices.h) into a TableSlice, on
// whichever connection and thread it is given: a reader is not changed by reading.

#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_rows.h"
#include "analyzer/import/nsight/nsys_table_slice.h"
#include "analyzer/import/nsight/table_slices.h"
#include "trace/db/sqlite_database.h"
#include "trace/string_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

inline constexpr const char* kNsysKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr const char* kNsysRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr const char* kNsysDriver = "CUPTI_ACTIVITY_KIND_DRIVER";
inline constexpr const char* kNsysMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr const char* kNsysMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr const char* kNsysSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
inline constexpr const char* kNsysNvtx = "NVTX_EVENTS";

// What every table's reader knows besides its table: the export's string table, already read
// into the trace's (`strings`, only looked at while slices are read), and which rows to keep, a
// condition SQLite checks before a row is decoded: all rows, or one process's (`pid`: the pid
// packed into a row's globalPid or globalTid; a table that names no process then has none to
// keep), and only those that overlap `window` (the trace's clock), where one is given.
struct NsysReadScope {
  const ForeignStrings& ids;
  const trace::StringTable& strings;
  std::optional<std::int64_t> pid;
  std::optional<trace::ReadSpan> window;
};

class KernelTable {
 public:
  // Fails naming the table when it has none of the columns that name a kernel.
  static trace::Result<KernelTable> make(trace::db::SqliteDatabase& db, NsysReadScope scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, TableSlice<trace::Kernel>& out) const;

 private:
  KernelTable(trace::db::SqliteDatabase& db, NsysReadScope scope);
  NsysReadScope scope_;
  NsysColumns c_;
  RowCondition condition_;
  int device_, stream_, correlation_, registers_, static_shared_, dynamic_shared_, pid_;
  int grid_[3], block_[3];
  std::vector<std::pair<int, std::string_view>> name_columns_;  // (position, column), best first
};

// CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver calls, told apart by eventClass) or, in older
// exports, CUPTI_ACTIVITY_KIND_DRIVER.
class ApiTable {
 public:
  ApiTable(trace::db::SqliteDatabase& db, const char* table, NsysReadScope scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice,
                     TableSlice<trace::LaunchCall>& out) const;

 private:
  const char* table_;
  bool driver_table_;
  NsysReadScope scope_;
  NsysColumns c_;
  RowCondition condition_;
  int name_, event_class_;
};

// CUPTI_ACTIVITY_KIND_MEMCPY or CUPTI_ACTIVITY_KIND_MEMSET.
class MemoryOpTable {
 public:
  MemoryOpTable(trace::db::SqliteDatabase& db, const char* table, const NsysReadScope& scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, TableSlice<trace::MemoryOp>& out) const;

 private:
  const char* table_;
  bool memcpy_;
  NsysColumns c_;
  RowCondition condition_;
  int src_kind_, dst_kind_, mem_kind_, pid_;
};

class SyncTable {
 public:
  SyncTable(trace::db::SqliteDatabase& db, const NsysReadScope& scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice,
                     TableSlice<trace::Synchronization>& out) const;

 private:
  NsysColumns c_;
  RowCondition condition_;
  int pid_;
};

class NvtxTable {
 public:
  NvtxTable(trace::db::SqliteDatabase& db, NsysReadScope scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, TableSlice<NvtxRow>& out) const;

  // Ranges pushed or started but never ended before recording stopped: counted under this reason.
  static constexpr const char* kUnterminated = "ranges without an end (kept, closed at the end of the trace)";

 private:
  NsysReadScope scope_;
  NsysColumns c_;
  RowCondition condition_;
  int text_, text_id_, domain_, category_;
};

}  // namespace ampscope::analyzer::import
