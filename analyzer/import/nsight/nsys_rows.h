#pragma once
// What every reader of an Nsight Systems export's tables shares: the columns a SELECT takes (they
// differ between Nsight versions), the values of a row that may be absent, and the process and
// thread ids packed into globalTid and globalPid.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/db/sqlite_database.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

struct NsysThreadId {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
};

// ENUM_NSYS_EVENT_TYPE values found in NVTX_EVENTS.eventType.
enum NvtxEventType : std::int64_t {
  kNvtxCategory = 33, kNvtxMark = 34, kNvtxThread = 39, kNvtxPushPopRange = 59,
  kNvtxStartEndRange = 60, kNvtxDomainCreate = 75, kNvtxDomainDestroy = 76,
};

// globalTid packs <hardware:8><VM:8><pid:24><tid:24>; users know the pid and tid. The top bits
// can make the stored INTEGER negative, so shift it as unsigned.
inline NsysThreadId decodeGlobalTid(std::int64_t global_tid) {
  const auto bits = static_cast<std::uint64_t>(global_tid);
  return {static_cast<std::int64_t>((bits >> 24) & 0xFFFFFFu), static_cast<std::int64_t>(bits & 0xFFFFFFu)};
}

// The columns one SELECT reads: the essential ones (forEachRow fails, naming the column, when one
// is missing) followed by those optional ones the table has, since columns differ between Nsight
// versions. operator[] gives a column's position in the row, or -1 when it was not selected.
class NsysColumns {
 public:
  NsysColumns(trace::db::SqliteDatabase& db, std::string_view table, std::initializer_list<std::string_view> essential,
              std::initializer_list<std::string_view> optional)
      : names_(essential) {
    const std::vector<std::string> present = db.columns(table);
    for (std::string_view name : optional) {
      if (std::find(present.begin(), present.end(), name) != present.end()) names_.push_back(name);
    }
  }
  int operator[](std::string_view name) const {
    const auto found = std::find(names_.begin(), names_.end(), name);
    return found == names_.end() ? -1 : static_cast<int>(found - names_.begin());
  }
  const std::vector<std::string_view>& names() const { return names_; }

 private:
  std::vector<std::string_view> names_;
};

// These read a row of a statement (trace::db::Statement) or of a page scan
// (trace::db::TablePageScan), which give values alike.

// True when the row has a value in column (absent columns and NULLs have none).
template <typename Row>
bool has(const Row& s, int column) { return column >= 0 && !s.isNull(column); }
// A column's integer, or `fallback` where the column is absent or the value NULL. A NULL reads as
// 0, so SQLite is asked for the value's type only when it read 0: one call per value, not two,
// which counts over millions of rows.
template <typename Row>
std::optional<std::int64_t> valueIfAny(const Row& s, int column) {
  if (column < 0) return std::nullopt;
  const std::int64_t value = s.int64(column);
  if (value == 0 && s.isNull(column)) return std::nullopt;
  return value;
}
template <typename Row>
std::int64_t valueOr(const Row& s, int column, std::int64_t fallback) {
  // A NULL reads as 0: where the fallback is 0 too, the value read is the answer either way (most
  // optional columns, NULL in most rows, save the question).
  if (fallback == 0) return column < 0 ? 0 : s.int64(column);
  return valueIfAny(s, column).value_or(fallback);
}

// The device ordinal kernels and copies name a GPU by: TARGET_INFO_GPU's cuDevice, or Nsight's own
// GPU id (the row's id) where the export lacks it.
template <typename Row>
std::uint32_t deviceOrdinal(const Row& s, int cu_device_column, std::int64_t nsys_gpu_id) {
  return static_cast<std::uint32_t>(valueOr(s, cu_device_column, nsys_gpu_id));
}

// globalPid packs globalTid's fields with the tid bits zero. Absent (older exports) or NULL: unknown.
template <typename Row>
std::int64_t pidOf(const Row& s, int global_pid_column) {
  return has(s, global_pid_column) ? decodeGlobalTid(s.int64(global_pid_column)).pid : trace::kUnknownPid;
}

// Nsight's ENUM_CUDA_MEM_KIND does not use CUPTI's numbers: 0 is pageable here, unknown in CUPTI.
inline trace::MemoryKind memoryKindFromNsys(std::int64_t kind) {
  using trace::MemoryKind;
  switch (kind) {
    case 0: return MemoryKind::kPageable;
    case 1: return MemoryKind::kPinned;
    case 2: case 5: return MemoryKind::kDevice;   // DEVICE, DEVICE_STATIC
    case 3: return MemoryKind::kArray;
    case 4: case 6: return MemoryKind::kManaged;  // MANAGED, MANAGED_STATIC
    default: return MemoryKind::kUnknown;         // 7 is UNKNOWN
  }
}

}  // namespace ampscope::analyzer::import
