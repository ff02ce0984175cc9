#pragma once
// The readers of an Nsight Systems export's event tables: kernels, CUDA API calls, memory copies
// and sets, synchronisations, NVTX events. Each is made once for its table (which columns this
// export's version has) and then reads any slice of rowids (table_slices.h) into a TableSlice, or
// one TableSlice per process (SliceOutput), on whichever connection and thread it is given: a
// reader is not changed by reading.

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
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
// Every event table the readers below read.
inline constexpr const char* kNsysEventTables[] = {kNsysKernels, kNsysRuntime, kNsysDriver, kNsysMemcpy,
                                                   kNsysMemset,  kNsysSync,    kNsysNvtx};

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
  // Rows from the file's pages first (RowSource::kPagesFirst), or through statements alone.
  bool read_pages = true;
};

// Where a reader puts a slice's rows: all into one TableSlice (every row, or those of the process
// SQLite chose), or, when one pass over the export splits it by process, each into the TableSlice
// of its process, by the pid packed into its globalPid or globalTid. Rows of a process not asked
// for, or that name none, are passed by before anything else of them is read or counted, as
// SQLite passes them by for a read of one process.
//
// How: from the file's pages first (trace/db/table_page_scan.h), the scope's condition tested on
// each row as SQL tests it (nsys_row_conditions.h). Where the pages give up, the reader stops and
// says so (pagesGaveUp): the caller empties the slices and reads them again with
// RowSource::kStatement.
enum class RowSource { kPagesFirst, kStatement };

template <typename Record>
class SliceOutput {
 public:
  explicit SliceOutput(TableSlice<Record>& every_row, RowSource source = RowSource::kPagesFirst)
      : slices_{{0, &every_row}}, source_(source) {}
  // A slice per process: (pid, slice) pairs, any order.
  explicit SliceOutput(std::vector<std::pair<std::int64_t, TableSlice<Record>*>> by_pid,
                       RowSource source = RowSource::kPagesFirst)
      : slices_(std::move(by_pid)), by_process_(true), source_(source) {
    std::sort(slices_.begin(), slices_.end());
  }

  std::size_t size() const { return slices_.size(); }
  TableSlice<Record>& operator[](std::size_t i) const { return *slices_[i].second; }

  RowSource source() const { return source_; }
  // Set by the reader when the file's pages gave up: what the slices hold is to be dropped.
  void notePagesGaveUp() const { pages_gave_up_ = true; }
  bool pagesGaveUp() const { return pages_gave_up_; }

  // The index of the slice a row goes into, by its process column (-1: the table has none);
  // nullopt: the row is passed by.
  template <typename Row>
  std::optional<std::size_t> route(const Row& s, int process_column) const {
    if (!by_process_) return 0;
    if (!has(s, process_column)) return passBy();
    const std::int64_t pid = decodeGlobalTid(s.int64(process_column)).pid;
    const auto at = std::lower_bound(slices_.begin(), slices_.end(), pid,
                                     [](const auto& slice, std::int64_t wanted) { return slice.first < wanted; });
    if (at == slices_.end() || at->first != pid) return passBy();
    return static_cast<std::size_t>(at - slices_.begin());
  }
  // The rows route passed by.
  std::uint64_t rowsPassedBy() const { return passed_by_; }

  // Room for as many rows as the slice spans, in each output (exports number rows densely; pages
  // never written are never resident, base/page_allocator.h).
  void reserve(RowidSlice slice) const {
    if (slice.first == kEveryRowid.first) return;
    for (const auto& [pid, out] : slices_) out->rows.reserve(static_cast<std::size_t>(slice.end - slice.first));
  }

 private:
  std::optional<std::size_t> passBy() const {
    ++passed_by_;
    return std::nullopt;
  }

  std::vector<std::pair<std::int64_t, TableSlice<Record>*>> slices_;
  bool by_process_ = false;
  RowSource source_ = RowSource::kPagesFirst;
  mutable bool pages_gave_up_ = false;
  mutable std::uint64_t passed_by_ = 0;  // counted by route, which leaves the routing unchanged
};

class KernelTable {
 public:
  // Fails naming the table when it has none of the columns that name a kernel.
  static trace::Result<KernelTable> make(trace::db::SqliteDatabase& db, NsysReadScope scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, const SliceOutput<trace::Kernel>& output) const;

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
                     const SliceOutput<trace::LaunchCall>& output) const;

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
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, const SliceOutput<trace::MemoryOp>& output) const;

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
                     const SliceOutput<trace::Synchronization>& output) const;

 private:
  NsysColumns c_;
  RowCondition condition_;
  int pid_;
};

class NvtxTable {
 public:
  NvtxTable(trace::db::SqliteDatabase& db, NsysReadScope scope);
  trace::Status read(trace::db::SqliteDatabase& connection, RowidSlice slice, const SliceOutput<NvtxRow>& output) const;

  // Ranges pushed or started but never ended before recording stopped: counted under this reason.
  static constexpr const char* kUnterminated = "ranges without an end (kept, closed at the end of the trace)";

 private:
  NsysReadScope scope_;
  NsysColumns c_;
  RowCondition condition_;
  int text_, text_id_, domain_, category_;
};

}  // namespace ampscope::analyzer::import
