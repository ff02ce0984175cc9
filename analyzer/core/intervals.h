#pragma once
// Time intervals [start, end) in nanoseconds and the set operations the step measures need: the
// union of overlapping kernels, its length, and the time two unions share.

#include <cstdint>
#include <utility>
#include <vector>

namespace ampscope::analyzer {

using Interval = std::pair<std::int64_t, std::int64_t>;

// Sorted, disjoint intervals covering the same time.
std::vector<Interval> unite(std::vector<Interval> intervals);

// Total time of sorted, disjoint intervals.
std::int64_t length(const std::vector<Interval>& intervals);

// Both sorted and disjoint: the time they share.
std::int64_t shared(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Sorted and disjoint: the part inside [from, to).
std::int64_t lengthWithin(const std::vector<Interval>& intervals, std::int64_t from, std::int64_t to);

}  // namespace ampscope::analyzer
