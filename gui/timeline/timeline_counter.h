#pragma once
// One counter track of the timeline: a step function of time (the analyzer's launch queue depth of
// a stream, analyzer::StreamQueue::points) with what drawing needs to stay O(pixels). A window
// query gives the largest value in each pixel column, so a queue that fills for a microsecond
// still shows as a spike when a pixel covers a millisecond; each column costs O(log n) through
// per-block maxima, never a scan of the points it covers. Plain C++: no Qt, testable alone.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analyzer/steps/launch_queue.h"

namespace ampscope::gui {

class TimelineCounter {
 public:
  // points: sorted by time, one per time, each value holding until the next point; the value is 0
  // before the first. The points are not copied: their owner must outlive the counter
  // (TimelineIndex holds the analysis they belong to).
  explicit TimelineCounter(std::span<const analyzer::QueuePoint> points = {});

  std::span<const analyzer::QueuePoint> points() const { return points_; }
  // The largest value anywhere: the track's scale, fixed so that panning does not rescale it.
  std::int32_t maxValue() const { return max_value_; }
  // The value in force at time_ns.
  std::int32_t valueAt(std::int64_t time_ns) const;
  // The largest value in force at any time in [from_ns, to_ns); valueAt(from_ns) when empty.
  std::int32_t maxIn(std::int64_t from_ns, std::int64_t to_ns) const;

  // out[c] for c in [0, columns): the largest value in force in column c, which covers
  // [start_ns + floor(c * ns_per_px), start_ns + floor((c + 1) * ns_per_px)). O(columns · log n).
  void query(std::int64_t start_ns, double ns_per_px, int columns, std::vector<std::int32_t>& out) const;

  // Bytes the counter adds to its points (which the analysis owns): the per-block maxima.
  std::size_t memoryBytes() const;

 private:
  // The first point at or after `from` whose time is at least time_ns (size() when none).
  std::size_t firstAtOrAfter(std::size_t from, std::int64_t time_ns) const;
  // The largest value among points [first, last); INT32_MIN when empty.
  std::int32_t maxOfPoints(std::size_t first, std::size_t last) const;

  std::span<const analyzer::QueuePoint> points_;
  std::int32_t max_value_ = 0;
  // levels_[k][i]: the largest value of block i of kBranching^(k+1) points.
  std::vector<std::vector<std::int32_t>> levels_;
};

}  // namespace ampscope::gui
