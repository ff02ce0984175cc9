#include "gui/timeline/timeline_counter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gui/timeline/block_levels.h"

namespace ampscope::gui {
namespace {

// As TimelineRow's levels: blocks small enough to scan quickly, large enough that the maxima add
// a seventh of the points' memory.
constexpr std::size_t kBranching = 8;

}  // namespace

TimelineCounter::TimelineCounter(std::span<const analyzer::QueuePoint> points) : points_(points) {
  const auto at = [this](std::size_t level, std::size_t i) {
    return level == 0 ? points_[i].depth : levels_[level - 1][i];
  };
  const auto size = [this](std::size_t level) { return level == 0 ? points_.size() : levels_[level - 1].size(); };
  for (std::size_t level = 0; size(level) > kBranching; ++level) {
    const std::size_t below = size(level);
    std::vector<std::int32_t> blocks((below + kBranching - 1) / kBranching, std::numeric_limits<std::int32_t>::min());
    for (std::size_t i = 0; i < below; ++i) blocks[i / kBranching] = std::max(blocks[i / kBranching], at(level, i));
    levels_.push_back(std::move(blocks));
  }
  max_value_ = std::max(0, maxOfPoints(0, points_.size()));
}

std::int32_t TimelineCounter::valueAt(std::int64_t time_ns) const {
  const auto after = std::upper_bound(points_.begin(), points_.end(), time_ns,
                                      [](std::int64_t t, const analyzer::QueuePoint& p) { return t < p.time_ns; });
  return after == points_.begin() ? 0 : (after - 1)->depth;
}

std::size_t TimelineCounter::firstAtOrAfter(std::size_t from, std::int64_t time_ns) const {
  const auto found = std::partition_point(points_.begin() + static_cast<std::ptrdiff_t>(from), points_.end(),
                                          [time_ns](const analyzer::QueuePoint& p) { return p.time_ns < time_ns; });
  return static_cast<std::size_t>(found - points_.begin());
}

std::int32_t TimelineCounter::maxOfPoints(std::size_t first, std::size_t last) const {
  std::int32_t best = std::numeric_limits<std::int32_t>::min();
  const auto consider = [&](std::size_t level, std::size_t i) {
    best = std::max(best, level == 0 ? points_[i].depth : levels_[level - 1][i]);
  };
  // Whole blocks are taken from the level above: O(kBranching · log n) values, not last - first.
  visitBlockCover(first, last, levels_.size(), kBranching, consider);
  return best;
}

std::int32_t TimelineCounter::maxIn(std::int64_t from_ns, std::int64_t to_ns) const {
  const std::int32_t at_start = valueAt(from_ns);
  if (to_ns <= from_ns) return at_start;
  // Points after from_ns and before to_ns change the value inside the interval.
  const std::size_t first = firstAtOrAfter(0, from_ns + 1);
  return std::max(at_start, maxOfPoints(first, firstAtOrAfter(first, to_ns)));
}

void TimelineCounter::query(std::int64_t start_ns, double ns_per_px, int columns,
                            std::vector<std::int32_t>& out) const {
  out.assign(static_cast<std::size_t>(std::max(columns, 0)), 0);
  if (columns <= 0 || !(ns_per_px > 0.0)) return;
  // Invariant at each column's start a: value is the value in force at a, and next is the first
  // point after a. The points in the column [a, b) are then [next, first at or after b).
  std::int32_t value = valueAt(start_ns);
  std::size_t next = firstAtOrAfter(0, start_ns + 1);
  for (int c = 0; c < columns; ++c) {
    const auto end = start_ns + static_cast<std::int64_t>(std::floor((c + 1) * ns_per_px));
    const std::size_t inside_end = firstAtOrAfter(next, end);
    std::int32_t column_max = value;
    if (inside_end > next) {
      column_max = std::max(column_max, maxOfPoints(next, inside_end));
      value = points_[inside_end - 1].depth;
    }
    out[static_cast<std::size_t>(c)] = column_max;
    next = inside_end;
    // A point exactly at the column's end belongs to the next column, where it is in force first.
    if (next < points_.size() && points_[next].time_ns == end) value = points_[next++].depth;
  }
}

std::size_t TimelineCounter::memoryBytes() const {
  std::size_t bytes = 0;
  for (const auto& level : levels_) bytes += level.capacity() * sizeof(std::int32_t);
  return bytes;
}

}  // namespace ampscope::gui
