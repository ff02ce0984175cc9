#pragma once
// What one slice of one Nsight Systems table decodes into (table_slices.h): the rows as records of
// the trace model, and what they name that the trace does not have yet, numbered within the slice.
// Putting the slices together (nsys_slice_assembly.h) gives those their numbers in the trace.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "analyzer/import/nsight/packed_strings.h"
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
  // Interned into `names` while the slice is read, then packed (packNames) until the trace
  // interns them.
  trace::StringTable names;
  PackedStrings packed_names;
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
  // Where the rows and the packed names wait while a spill file holds them (they are empty
  // meanwhile).
  struct Spilled {
    SpillFile::Extent rows, chars, lengths, hashes;
  };
  std::optional<Spilled> spilled;
};

// The slice's names packed, the table they were interned in freed (packed_strings.h).
template <typename Record>
void packNames(TableSlice<Record>& slice) {
  slice.packed_names = PackedStrings::of(slice.names);
  slice.names = {};
}

namespace detail {

template <typename T, typename Allocator>
bool spillVector(SpillFile& file, const std::vector<T, Allocator>& from, SpillFile::Extent& at) {
  static_assert(std::is_trivially_copyable_v<T>, "values go to the file as their bytes");
  return file.write(from.data(), from.size() * sizeof(T), at);
}

template <typename T, typename Allocator>
trace::Status restoreVector(const SpillFile& file, const SpillFile::Extent& at, std::vector<T, Allocator>& into) {
  into.resize(at.bytes / sizeof(T));
  return file.read(at, into.data());
}

template <typename T, typename Allocator>
void freeVector(std::vector<T, Allocator>& v) {
  std::vector<T, Allocator>().swap(v);  // its memory too, not only its values
}

}  // namespace detail

// Moves a slice's rows and packed names into `file`, freeing their memory; where the file cannot
// take them all (a full disk) they stay where they are.
template <typename Record>
void spillSlice(SpillFile& file, TableSlice<Record>& slice) {
  if (slice.rows.empty() && slice.packed_names.empty()) return;
  typename TableSlice<Record>::Spilled at;
  PackedStrings& names = slice.packed_names;
  if (!detail::spillVector(file, slice.rows, at.rows) || !detail::spillVector(file, names.chars, at.chars) ||
      !detail::spillVector(file, names.lengths, at.lengths) || !detail::spillVector(file, names.hashes, at.hashes)) {
    return;
  }
  slice.spilled = at;
  detail::freeVector(slice.rows);
  detail::freeVector(names.chars);
  detail::freeVector(names.lengths);
  detail::freeVector(names.hashes);
}

// Brings back what spillSlice moved into `file`.
template <typename Record>
trace::Status restoreSlice(const SpillFile& file, TableSlice<Record>& slice) {
  if (!slice.spilled) return {};
  const typename TableSlice<Record>::Spilled at = *slice.spilled;
  slice.spilled.reset();
  PackedStrings& names = slice.packed_names;
  if (trace::Status read = detail::restoreVector(file, at.rows, slice.rows); !read) return read;
  if (trace::Status read = detail::restoreVector(file, at.chars, names.chars); !read) return read;
  if (trace::Status read = detail::restoreVector(file, at.lengths, names.lengths); !read) return read;
  return detail::restoreVector(file, at.hashes, names.hashes);
}

}  // namespace ampscope::analyzer::import
