#pragma once
// The timeline's data, built once per run: lanes of rows of events on one time axis. One lane per
// (device, stream) for kernels and memory operations, one per host thread for ranges with a row
// per nesting depth, each row a TimelineRow (sorted, level-of-detail queries, hit tests). Kernels
// are styled by what they are (Tensor Core math, other kernels, collectives), and a stream that
// mostly runs collectives is marked as communication: a rank's wait for the others shows there. Reads
// the correlated trace (analyzer::RunAnalysis::trace), so a kernel knows the operator range that
// launched it and through it its layer. Plain C++: no Qt.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/steps/launch_queue.h"
#include "gui/timeline/timeline_counter.h"
#include "gui/timeline/timeline_row.h"
#include "trace/trace_model.h"

namespace ampscope::gui {

// kQueue: a counter lane (no rows) drawn as a filled step plot of one stream's launch queue depth.
enum class TimelineLaneKind : std::uint8_t { kStream, kThread, kQueue };
// What a kQueue lane counts: the first part of its label.
inline constexpr std::string_view kQueueLaneTitle = "queue depth";

struct TimelineLane {
  TimelineLaneKind kind = TimelineLaneKind::kStream;
  std::string label;                  // "GPU 0 · stream 7", "GPU 0 · stream 13 · comm",
                                      // "thread 4242 (python)", "queue depth · GPU 0 · stream 7"
  std::string subject;                // kQueue lanes: the label after the title, "GPU 0 · stream 7"
                                      // (the lane column writes title and subject on two lines)
  std::uint32_t device = 0;           // kStream and kQueue lanes
  std::uint32_t stream = 0;           // kStream and kQueue lanes
  bool communication = false;         // kStream lanes: collectives take most of its kernel time
  trace::Index thread = trace::kNone; // kThread lanes: into Trace::threads (kNone: not recorded)
  std::int32_t counter = -1;          // kQueue lanes: into TimelineIndex::counters()
  std::int32_t first_row = 0;         // into TimelineIndex::rows(); a kQueue lane has no rows and
  std::int32_t row_count = 0;         // first_row is the next lane's first row
};

// An event found on the timeline: the row it is drawn in and its place in that row.
struct TimelineHit {
  std::int32_t row = -1;
  std::int32_t event = -1;

  bool valid() const { return row >= 0 && event >= 0; }
  bool operator==(const TimelineHit&) const = default;
};

class TimelineIndex {
 public:
  // Shares ownership of trace (alias a RunPtr with std::shared_ptr's aliasing constructor), so the
  // index can name its events for as long as it lives.
  // queue (the same run's TraceSummary::launch_queue, shared the same way; nullptr: none) gives
  // one counter lane per stream it measured.
  explicit TimelineIndex(std::shared_ptr<const trace::Trace> trace,
                         std::shared_ptr<const analyzer::LaunchQueue> queue = nullptr);

  const trace::Trace& trace() const { return *trace_; }
  const std::vector<TimelineLane>& lanes() const { return lanes_; }
  const std::vector<TimelineRow>& rows() const { return rows_; }
  const std::vector<TimelineCounter>& counters() const { return counters_; }
  // The counter of a kQueue lane.
  const TimelineCounter& counterOf(const TimelineLane& lane) const {
    return counters_[static_cast<std::size_t>(lane.counter)];
  }
  std::int32_t laneOfRow(std::int32_t row) const { return row_lane_[static_cast<std::size_t>(row)]; }
  const TimelineEvent& event(TimelineHit hit) const;

  // Earliest start and latest end of all events and queue changes (both 0 when there are none),
  // in trace ns.
  std::int64_t startNs() const { return start_ns_; }
  std::int64_t endNs() const { return end_ns_; }
  std::size_t eventCount() const { return event_count_; }

  // The event at time_ns in row (the nearest within tolerance_ns); invalid when none.
  TimelineHit hitTest(std::int32_t row, std::int64_t time_ns, std::int64_t tolerance_ns) const;

  trace::StringId nameOf(const TimelineEvent& event) const;
  // The layer the event belongs to: a kernel's or memory operation's launching operator range, a
  // range itself, and failing that their enclosing ranges. Empty when no range names one.
  std::string_view layerOf(const TimelineEvent& event) const;
  // Name, duration, layer and kind-specific details, one per line: the tooltip's text.
  std::string describe(const TimelineEvent& event) const;
  // The tooltip of a kQueue lane at [from_ns, to_ns) (the pixel under the cursor): its label, the
  // depth at from_ns and, when it differs, the largest depth in the pixel.
  std::string describeCounter(const TimelineLane& lane, std::int64_t from_ns, std::int64_t to_ns) const;

  // Bytes held by the lanes and rows (not the trace): what the timeline adds to a loaded run.
  std::size_t memoryBytes() const;

 private:
  void addEvents(std::vector<std::vector<TimelineEvent>>& lane_events,
                 std::vector<std::vector<std::int32_t>>& preferred_rows);

  std::shared_ptr<const trace::Trace> trace_;
  std::shared_ptr<const analyzer::LaunchQueue> queue_;  // owns the counters' points
  std::vector<TimelineLane> lanes_;
  std::vector<TimelineRow> rows_;
  std::vector<TimelineCounter> counters_;
  std::vector<std::int32_t> row_lane_;
  std::int64_t start_ns_ = 0;
  std::int64_t end_ns_ = 0;
  std::size_t event_count_ = 0;
};

// "1.25 ms", "830 ns", "12.0 s": a duration with three significant digits.
std::string formatDurationNs(double ns);

}  // namespace ampscope::gui
