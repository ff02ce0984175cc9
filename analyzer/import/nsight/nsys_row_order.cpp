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

// Puts rows in the order of keyOf(row, place): a tuple of the start, what orders rows that start
// together, and last the row's place in the file, so that rows equal in everything else keep
// file order. Rows already in that order stay as they are (one pass); rows in order of start
// but for some that start together are put in order run by run; others are sorted as small keys,
// each row then moved once (rows are large: a merge sort would move each about log2(n) times and
// need a buffer of half of them).
template <typename Row, typename KeyOf>
bool putInKeyOrder(std::span<Row> rows, KeyOf keyOf) {
  // Without the place: a stable sort keeps it.
  const auto byKey = [&](const Row& a, const Row& b) { return keyOf(a, 0) < keyOf(b, 0); };
  if (std::is_sorted(rows.begin(), rows.end(), byKey)) return false;
  if (std::is_sorted(rows.begin(), rows.end(), startsInOrder<Row>)) {
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
  return putInKeyOrder(rows, [](const Row& r, std::uint32_t place) {
    return std::tuple(r.start_ns, r.device, r.stream, place);
  });
}

}  // namespace

bool putInTimeOrder(std::span<trace::Kernel> rows) { return putStreamRowsInOrder(rows); }
bool putInTimeOrder(std::span<trace::MemoryOp> rows) { return putStreamRowsInOrder(rows); }
bool putInTimeOrder(std::span<trace::Synchronization> rows) { return putStreamRowsInOrder(rows); }

bool putInTimeOrder(std::span<trace::LaunchCall> rows) {
  return putInKeyOrder(rows, [](const trace::LaunchCall& r, std::uint32_t place) {
    return std::tuple(r.start_ns, r.thread, place);
  });
}

bool putInTimeOrder(std::span<trace::Range> rows) {
  // As Trace::sortByTime orders ranges: by start, the longer first; then by thread.
  return putInKeyOrder(rows, [](const trace::Range& r, std::uint32_t place) {
    return std::tuple(r.start_ns, ~r.end_ns, r.thread, place);  // ~: the longer first, without overflow
  });
}

}  // namespace ampscope::analyzer::import
