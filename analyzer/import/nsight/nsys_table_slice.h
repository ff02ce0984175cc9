#pragma once
// What one slice of one Nsight Systems table decodes into (table_slices.h): the rows as records of
// the trace model, and what they name that the trace does not have yet, numbered within the slice.
// Putting the slices together (nsys_slice_assembly.h) gives those their numbers in the trace.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "analyzer/import/nsight/spill_file.h"
#include "base/page_allocator.h"
#include "trace/string_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// A name with this bit set is the slice's own: (name & ~kSliceName) in TableSlice::names. Names
// without it are the trace's already (StringIds, read before the slices).
inline constexpr trace::StringId kSliceName = 0x80000000u;

// A thread the slice's rows ran on, and the earliest start among them (threads are numbered in
// the trace by when they first appear, whatever order the export's rows are in).
struct SliceThread {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int64_t first_start_ns = 0;
};

// An NVTX event as a slice holds it: what NVTX_EVENTS gives of a range (32 bytes). The trace's
// Range is 104 bytes, most of them filled only by the range normaliser: a Range per row would be
// written, paged in and freed once more for every NVTX row of a slice.
struct NvtxRow {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  trace::StringId name = trace::StringTable::kEmpty;
  trace::Index thread = trace::kNone;
  std::uint32_t category = 0;
  trace::StringId domain = trace::StringTable::kEmpty;
};

template <typename Record>
struct TableSlice {
  // Freed as soon as they are moved into the trace, while the import goes on: their memory goes
  // back to the system then (base/page_allocator.h).
  std::vector<Record, PageAllocator<Record>> rows;
  // Strings first met in this slice: NVTX text given inline, API names without their version.
  trace::StringTable names;
  // A row's `thread` is an index here until the slices are put together.
  std::vector<SliceThread> threads;
  std::size_t last_thread = 0;  // the index found last: a thread's rows come in runs
  trace::ImportStats stats;
  std::int64_t last_ns = 0;  // the latest time the slice's rows reach
  // NVTX: ranges never ended (closed at the end of the whole trace), the domain id of each range
  // in a domain other than the default one, and the domains created, by id, in row order.
  std::vector<std::uint32_t> unterminated;
  std::vector<std::pair<std::uint32_t, std::int64_t>> range_domains;
  std::vector<std::pair<std::int64_t, trace::StringId>> domain_names;
  // Where the rows wait while a spill file holds them (`rows` is empty meanwhile).
  std::optional<SpillFile::Extent> spilled;
};

// Moves a slice's rows into `file`, freeing their memory; where the file cannot take them (a full
// disk) they stay where they are.
template <typename Record>
void spillRows(SpillFile& file, TableSlice<Record>& slice) {
  static_assert(std::is_trivially_copyable_v<Record>, "rows go to the file as their bytes");
  if (slice.rows.empty()) return;
  SpillFile::Extent at;
  if (!file.write(slice.rows.data(), slice.rows.size() * sizeof(Record), at)) return;
  slice.spilled = at;
  decltype(slice.rows)().swap(slice.rows);  // its memory too, not only its rows
}

// Brings back the rows spillRows moved into `file`.
template <typename Record>
trace::Status restoreRows(const SpillFile& file, TableSlice<Record>& slice) {
  if (!slice.spilled) return {};
  slice.rows.resize(slice.spilled->bytes / sizeof(Record));
  const trace::Status read = file.read(*slice.spilled, slice.rows.data());
  slice.spilled.reset();
  return read;
}

}  // namespace ampscope::analyzer::import
