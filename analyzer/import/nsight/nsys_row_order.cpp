#include "analyzer/import/nsight/nsys_row_order.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "base/permute.h"

namespace ampscope::analyzer::import {

namespace {

template <typename Row>
bool startsInOrder(const Row& a, const Row& b) {
  return a.start_ns < b.start_ns;
}

// Rows in time order (`before`: by start; ranges also the longer first) stay as they are. Others
// are ordered by keyOf(row, place), a tuple whose last member is the row's place in the file, so
// that rows equal in everything else keep file order. Small keys are sorted and each row moved
// once: rows are large, and a merge sort would move each about log2(n) times and need a buffer
// of half of them.
template <typename Row, typename Before, typename KeyOf>
bool sortUnlessInOrder(std::span<Row> rows, Before before, KeyOf keyOf) {
  if (std::is_sorted(rows.begin(), rows.end(), before)) return false;
  // Without the place: a stable sort keeps it.
  const auto byKey = [&](const Row& a, const Row& b) { return keyOf(a, 0) < keyOf(b, 0); };
  if (std::is_sorted(rows.begin(), rows.end(), startsInOrder<Row>)) {
    // In order of start but for rows that start together (ranges: a child before its parent):
    // each run of equal starts is put in order alone.
    for (auto run = rows.begin(); run != rows.end();) {
      const auto end = std::find_if(run, rows.end(), [&](const Row& r) { return r.start_ns != run->start_ns; });
      if (end - run > 1) std::stable_sort(run, end, byKey);
      run = end;
    }
    return true;
  }
  if (rows.size() > std::numeric_limits<std::uint32_t>::max()) {
    // Places do not fit the keys (no export that fits in memory has so many rows of one table).
    std::stable_sort(rows.begin(), rows.end(), byKey);
    return true;
  }
  using Key = decltype(keyOf(rows[0], std::uint32_t{0}));
  std::vector<Key> keys;
  keys.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) keys.push_back(keyOf(rows[i], static_cast<std::uint32_t>(i)));
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> order;
  order.reserve(keys.size());
  for (const Key& key : keys) order.push_back(std::get<std::tuple_size_v<Key> - 1>(key));
  keys = {};
  permuteInPlace(rows, order);
  return true;
}

// Records of a device's stream: kernels, copies and sets, synchronisations.
template <typename Row>
bool putStreamRowsInOrder(std::span<Row> rows) {
  return sortUnlessInOrder(rows, startsInOrder<Row>, [](const Row& r, std::uint32_t place) {
    return std::tuple(r.start_ns, r.device, r.stream, place);
  });
}

}  // namespace

bool putInTimeOrder(std::span<trace::Kernel> rows) { return putStreamRowsInOrder(rows); }
bool putInTimeOrder(std::span<trace::MemoryOp> rows) { return putStreamRowsInOrder(rows); }
bool putInTimeOrder(std::span<trace::Synchronization> rows) { return putStreamRowsInOrder(rows); }

bool putInTimeOrder(std::span<trace::LaunchCall> rows) {
  return sortUnlessInOrder(rows, startsInOrder<trace::LaunchCall>, [](const trace::LaunchCall& r, std::uint32_t place) {
    return std::tuple(r.start_ns, r.thread, place);
  });
}

bool putInTimeOrder(std::span<trace::Range> rows) {
  // As Trace::sortByTime orders ranges: by start, the longer first.
  const auto before = [](const trace::Range& a, const trace::Range& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  };
  return sortUnlessInOrder(rows, before, [](const trace::Range& r, std::uint32_t place) {
    return std::tuple(r.start_ns, -r.end_ns, r.thread, place);
  });
}

}  // namespace ampscope::analyzer::import
