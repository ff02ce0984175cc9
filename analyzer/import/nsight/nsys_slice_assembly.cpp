#include "analyzer/import/nsight/nsys_slice_assembly.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analyzer/import/nsight/nsys_row_order.h"
#include "base/run_beside.h"

namespace ampscope::analyzer::import {

namespace {

// A slice's own ids, and the trace's ids for them.
struct SliceIds {
  std::vector<trace::StringId> names;  // by the slice's string id
  std::vector<trace::Index> threads;   // by the slice's thread index
};

// The trace's ids of a slice's names, by the slice's id; the packed names are freed once interned.
template <typename Record>
std::vector<trace::StringId> internNames(TableSlice<Record>& slice, trace::StringTable& strings) {
  std::vector<trace::StringId> ids;
  ids.reserve(slice.packed_names.size() + 1);
  ids.push_back(trace::StringTable::kEmpty);
  slice.packed_names.forEach([&](std::string_view text, std::uint32_t hash) { ids.push_back(strings.intern(text, hash)); });
  slice.packed_names = {};
  return ids;
}

trace::StringId resolvedName(trace::StringId name, const SliceIds& ids) {
  return (name & kSliceName) != 0 ? ids.names[name & ~kSliceName] : name;
}

// Where a thread first appears: the rank of the table (API calls first), then its earliest start.
using ThreadOrder = std::tuple<int, std::int64_t>;
using ThreadKey = std::pair<std::int64_t, std::int64_t>;  // (pid, tid)

template <typename Record>
void noteThreads(const std::vector<TableSlice<Record>>& slices, int table_rank, std::map<ThreadKey, ThreadOrder>& seen) {
  for (const TableSlice<Record>& slice : slices) {
    for (const SliceThread& t : slice.threads) {
      const ThreadOrder order{table_rank, t.first_start_ns};
      const auto [at, fresh] = seen.try_emplace(ThreadKey{t.pid, t.tid}, order);
      if (!fresh) at->second = std::min(at->second, order);
    }
  }
}

template <typename Record>
std::vector<trace::Index> threadIndices(const TableSlice<Record>& slice, const std::map<ThreadKey, trace::Index>& index) {
  std::vector<trace::Index> out;
  out.reserve(slice.threads.size());
  for (const SliceThread& t : slice.threads) out.push_back(index.at(ThreadKey{t.pid, t.tid}));
  return out;
}

void addStats(trace::ImportStats& to, const auto& slices) {
  for (const auto& slice : slices) to.add(slice.stats);
}

std::int64_t latest(std::int64_t last, const auto& slices) {
  for (const auto& slice : slices) last = std::max(last, slice.last_ns);
  return last;
}

// The range an NVTX event is before the range normaliser reads its text: an annotation.
trace::Range rangeOf(const NvtxRow& row) {
  return {.start_ns = row.start_ns, .end_ns = row.end_ns, .name = row.name, .thread = row.thread,
          .kind = trace::RangeKind::kAnnotation, .domain = row.domain, .category = row.category};
}

// Appends one table's slices to `to`, each row as `recordOf` makes it, freeing each slice once
// moved, and puts the table's rows in time order.
template <typename Row, typename Record, typename RecordOf>
void appendTable(std::vector<TableSlice<Row>>& slices, std::vector<Record>& to, RecordOf recordOf) {
  const std::size_t first = to.size();
  std::size_t rows = 0;
  for (const TableSlice<Row>& slice : slices) rows += slice.rows.size();
  to.reserve(first + rows);
  for (TableSlice<Row>& slice : slices) {
    for (const Row& row : slice.rows) to.push_back(recordOf(row));
    slice = {};
  }
  putInTimeOrder(std::span<Record>(to).subspan(first));
}

template <typename Record>
void appendTable(std::vector<TableSlice<Record>>& slices, std::vector<Record>& to) {
  appendTable(slices, to, [](const Record& row) -> const Record& { return row; });
}

}  // namespace

void resolveSlices(NsysSlices& slices, trace::Trace& trace) {
  // Strings: API names, then NVTX text, each in file order (as one reader going down the tables
  // would intern them).
  std::vector<SliceIds> runtime_ids;
  std::vector<SliceIds> driver_ids;
  std::vector<SliceIds> nvtx_ids;
  for (auto& slice : slices.runtime) runtime_ids.push_back({internNames(slice, trace.strings), {}});
  for (auto& slice : slices.driver) driver_ids.push_back({internNames(slice, trace.strings), {}});
  for (auto& slice : slices.nvtx) nvtx_ids.push_back({internNames(slice, trace.strings), {}});

  // Threads: by the table they first appear in and their earliest start there, then pid and tid.
  std::map<ThreadKey, ThreadOrder> seen;
  noteThreads(slices.runtime, 0, seen);
  noteThreads(slices.driver, 1, seen);
  noteThreads(slices.nvtx, 2, seen);
  std::vector<std::pair<ThreadOrder, ThreadKey>> order;
  for (const auto& [key, first] : seen) order.emplace_back(first, key);
  std::sort(order.begin(), order.end());
  std::map<ThreadKey, trace::Index> index;
  for (const auto& [first, key] : order) index.emplace(key, trace.threadIndex(key.first, key.second));
  for (std::size_t i = 0; i < slices.runtime.size(); ++i) runtime_ids[i].threads = threadIndices(slices.runtime[i], index);
  for (std::size_t i = 0; i < slices.driver.size(); ++i) driver_ids[i].threads = threadIndices(slices.driver[i], index);
  for (std::size_t i = 0; i < slices.nvtx.size(); ++i) nvtx_ids[i].threads = threadIndices(slices.nvtx[i], index);

  const auto renumberCalls = [](std::vector<TableSlice<trace::LaunchCall>>& calls, const std::vector<SliceIds>& ids) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      for (trace::LaunchCall& call : calls[i].rows) {
        call.name = resolvedName(call.name, ids[i]);
        call.thread = ids[i].threads[call.thread];
      }
    }
  };
  renumberCalls(slices.runtime, runtime_ids);
  renumberCalls(slices.driver, driver_ids);

  // Domains are named by their creation events (the last one of an id wins); ranges name them
  // by id, 0 being the default domain.
  std::unordered_map<std::int64_t, trace::StringId> domain_names;
  for (std::size_t i = 0; i < slices.nvtx.size(); ++i) {
    for (const auto& [domain_id, name] : slices.nvtx[i].domain_names) domain_names[domain_id] = resolvedName(name, nvtx_ids[i]);
  }
  // Counts in the order one reader would have met them: host tables, then the GPU's.
  trace::ImportStats& stats = trace.import_stats;
  addStats(stats, slices.runtime);
  addStats(stats, slices.driver);
  addStats(stats, slices.nvtx);
  addStats(stats, slices.kernels);
  addStats(stats, slices.memcpy);
  addStats(stats, slices.memset);
  addStats(stats, slices.syncs);
  std::int64_t last_ns = 0;
  last_ns = latest(last_ns, slices.runtime);
  last_ns = latest(last_ns, slices.driver);
  last_ns = latest(last_ns, slices.nvtx);
  last_ns = latest(last_ns, slices.kernels);
  last_ns = latest(last_ns, slices.memcpy);
  last_ns = latest(last_ns, slices.memset);
  last_ns = latest(last_ns, slices.syncs);
  for (std::size_t i = 0; i < slices.nvtx.size(); ++i) {
    TableSlice<NvtxRow>& slice = slices.nvtx[i];
    for (NvtxRow& range : slice.rows) {
      range.name = resolvedName(range.name, nvtx_ids[i]);
      range.thread = nvtx_ids[i].threads[range.thread];
    }
    // Pushed or started but never ended: closed at the end of the whole trace.
    for (std::uint32_t at : slice.unterminated) slice.rows[at].end_ns = std::max(slice.rows[at].start_ns, last_ns);
    for (const auto& [at, domain_id] : slice.range_domains) {
      const auto found = domain_names.find(domain_id);
      if (found != domain_names.end()) slice.rows[at].domain = found->second;
    }
  }
}

void moveSlicesInto(NsysSlices&& slices, trace::Trace& trace, unsigned threads) {
  // The ranges (most of the rows, as a rule) beside the other tables: each writes its own vector.
  auto ranges = runBeside(threads > 1, [&] { appendTable(slices.nvtx, trace.ranges, rangeOf); });
  appendTable(slices.kernels, trace.kernels);
  appendTable(slices.runtime, trace.launches);
  appendTable(slices.driver, trace.launches);
  appendTable(slices.memcpy, trace.memory_ops);
  appendTable(slices.memset, trace.memory_ops);
  appendTable(slices.syncs, trace.synchronizations);
  ranges.get();
}

}  // namespace ampscope::analyzer::import
