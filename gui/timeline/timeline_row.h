#pragma once
// One row of the timeline: events that do not overlap, sorted by start, with what drawing needs
// to stay O(pixels) however many events the row holds. A window query at a given time per pixel
// returns every event at least a pixel wide on its own and merges runs of narrower events into
// items drawn in the colour of their longest event, so a row of a million kernels fitted into
// 1,920 pixels yields at most a few thousand items. Plain C++: no Qt, testable alone.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::gui {

enum class TimelineEventKind : std::uint8_t { kKernel, kMemoryOp, kRange };

// How an event is drawn: a colour family (the shade varies by name so neighbours differ).
enum class TimelineStyle : std::uint8_t {
  kTensorCoreKernel,
  kKernel,
  kCommunicationKernel,  // a collective (NCCL, ...): its time includes waiting for other ranks
  kHostOp,  // work of a CPU device (the trainer's CPU backend)
  kMemcpy,
  kMemset,
  kRangeStep,
  kRangeData,
  kRangeForward,
  kRangeBackward,
  kRangeOptimizer,
  kRangeLossScale,
  kRangeOther,
};
inline constexpr int kTimelineStyleCount = static_cast<int>(TimelineStyle::kRangeOther) + 1;
// Shades per style: enough that neighbouring events with different names usually differ.
inline constexpr int kTimelineShadeCount = 4;

struct TimelineEvent {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  trace::Index source = trace::kNone;  // into Trace::kernels, memory_ops or ranges, by kind
  TimelineEventKind kind = TimelineEventKind::kKernel;
  TimelineStyle style = TimelineStyle::kKernel;
  std::uint8_t shade = 0;  // from the name, below kTimelineShadeCount

  std::int64_t durationNs() const { return end_ns - start_ns; }
};

// What one row draws for a window: one event (count 1), or a run of events each narrower than a
// pixel whose gaps are under a pixel, drawn as one bar from start_ns to end_ns. A run is split
// where the colour of the longest event per pixel column changes, so that a stretch of Tensor
// Core kernels among other kernels still shows when a pixel holds hundreds of them.
struct TimelineItem {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int32_t first = 0;     // the row's index of the first event
  std::int32_t count = 1;     // events [first, first + count)
  std::int32_t dominant = 0;  // the row's index of the longest of them: the item's colour
  std::int64_t busy_ns = 0;   // the events' summed durations: how much of the bar is busy

  bool single() const { return count == 1; }
};

class TimelineRow {
 public:
  // events must not overlap (an event may start where the previous one ends) and must be sorted
  // by start; TimelineIndex assigns rows so that this holds.
  explicit TimelineRow(std::vector<TimelineEvent> events = {});

  const std::vector<TimelineEvent>& events() const { return events_; }
  std::size_t size() const { return events_.size(); }
  const TimelineEvent& operator[](std::size_t i) const { return events_[i]; }

  // Appends to out, in time order, the items that cover [start_ns, end_ns) at ns_per_px
  // nanoseconds per pixel: every event that reaches into the window (events crossing its edges
  // included) lies in exactly one item; events at least ns_per_px long are items of their own.
  // Items start in distinct pixel columns, so there are O(pixels) of them, and each costs
  // O(log n): the events between are skipped, never visited.
  void query(std::int64_t start_ns, std::int64_t end_ns, double ns_per_px,
             std::vector<TimelineItem>& out) const;

  // The event containing time_ns, else the nearest one within tolerance_ns of it; -1 when none.
  std::int32_t hitTest(std::int64_t time_ns, std::int64_t tolerance_ns) const;

  // The first index >= from whose event lasts at least min_duration_ns; size() when none.
  std::size_t firstAtLeast(std::size_t from, std::int64_t min_duration_ns) const;
  // The index of the longest event in [first, last); first when the range is empty.
  std::size_t longestIn(std::size_t first, std::size_t last) const;
  // The summed durations of the events in [first, last).
  std::int64_t busyIn(std::size_t first, std::size_t last) const;

  std::size_t memoryBytes() const;

 private:
  // Level 0 is the events themselves; level k > 0 is levels_[k - 1]. Inline: the searches call
  // these in their inner loops.
  std::size_t levelSize(std::size_t level) const {
    return level == 0 ? events_.size() : levels_[level - 1].size();
  }
  std::size_t eventAt(std::size_t level, std::size_t i) const {
    return level == 0 ? i : static_cast<std::size_t>(levels_[level - 1][i].longest);
  }
  std::int64_t durationAt(std::size_t level, std::size_t i) const {
    return level == 0 ? events_[i].durationNs() : levels_[level - 1][i].max_duration_ns;
  }
  // The first index in [from, to) whose event starts at or after time_ns (to when none), found by
  // galloping from `from` (the answer is usually a pixel's worth of events away, not n/2) over
  // block_starts_.
  std::size_t firstStartingAt(std::size_t from, std::size_t to, std::int64_t time_ns) const;
  std::int64_t busyBefore(std::size_t index) const;

  struct Block {
    std::int64_t max_duration_ns = 0;
    std::int32_t longest = 0;  // the row's index of the event that lasts max_duration_ns
  };
  std::vector<TimelineEvent> events_;
  // levels_[k][i]: the longest event of block i of kBranching^(k+1) events. Finding the next
  // event wide enough to draw alone, or the longest of a run, then costs O(log n), not a scan;
  // the levels add about 2 bytes per event.
  std::vector<std::vector<Block>> levels_;
  // The start of the first event of each block of kBranching events: searches by time touch this
  // compact array, not an event per step.
  std::vector<std::int64_t> block_starts_;
  // The summed durations of the events before each block: a run's busy time in O(kBranching).
  std::vector<std::int64_t> block_busy_before_;
};

}  // namespace ampscope::gui
