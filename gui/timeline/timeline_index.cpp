#include "gui/timeline/timeline_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "analyzer/steps/collectives.h"
#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::gui {
namespace {

using trace::Index;
using trace::kNone;

// An event waiting for its row: ranges prefer the row of their nesting depth, stream work row 0.
struct PendingEvent {
  TimelineEvent event;
  std::int32_t preferred_row = 0;
};

std::uint8_t shadeOf(trace::StringId name) {
  // Fibonacci hashing spreads consecutive ids (names interned one after another) over the shades.
  return static_cast<std::uint8_t>(((name * 2654435761U) >> 16) % kTimelineShadeCount);
}

TimelineStyle styleOfPhase(trace::Phase phase) {
  switch (phase) {
    case trace::Phase::kStep: return TimelineStyle::kRangeStep;
    case trace::Phase::kData: return TimelineStyle::kRangeData;
    case trace::Phase::kForward: return TimelineStyle::kRangeForward;
    case trace::Phase::kBackward: return TimelineStyle::kRangeBackward;
    case trace::Phase::kOptimizer: return TimelineStyle::kRangeOptimizer;
    case trace::Phase::kLossScale: return TimelineStyle::kRangeLossScale;
    case trace::Phase::kUnknown: break;
  }
  return TimelineStyle::kRangeOther;
}

bool deviceIsCpu(const trace::Trace& trace, std::uint32_t device) {
  for (const auto& d : trace.devices) {
    if (d.id == device) return d.kind == trace::DeviceKind::kCpu;
  }
  return false;
}

// "GPU 0 · stream 7": a stream lane's label, and the end of its queue lane's.
std::string streamName(const trace::Trace& trace, std::uint32_t device, std::uint32_t stream) {
  return fmt::format("{} {} · stream {}", deviceIsCpu(trace, device) ? "CPU" : "GPU", device, stream);
}

// A stream lane label's last part when the stream is the rank's communication stream: short, so that
// the label column (TimelinePainter::kLabelWidth) shows it whole.
constexpr std::string_view kCommunicationLaneMark = " · comm";

// A stream whose kernel time is mostly collectives is where the rank communicates (NCCL runs its
// collectives on a stream of its own). Most, not all: the copy kernels that flatten an all-gather's
// tensors run on that stream too and do not make it a compute stream.
bool isCommunicationStream(const std::vector<PendingEvent>& events) {
  std::int64_t kernel_ns = 0;
  std::int64_t collective_ns = 0;
  for (const PendingEvent& p : events) {
    if (p.event.kind != TimelineEventKind::kKernel) continue;
    kernel_ns += p.event.durationNs();
    if (p.event.style == TimelineStyle::kCommunicationKernel) collective_ns += p.event.durationNs();
  }
  return collective_ns > 0 && 2 * collective_ns > kernel_ns;
}

// Marks a lane that has no events of its own (a counter lane) in the lane-to-events order.
constexpr std::size_t kNoEvents = std::numeric_limits<std::size_t>::max();

// Places each event (sorted by start, longer first on ties so a parent precedes its children) in
// the lowest free row at or below its preferred one. Rows then never overlap, which is what
// TimelineRow's binary searches rely on; well-nested ranges keep one row per depth, and the rare
// overlapping kernels of one stream (clock skew, broken traces) get a row of their own instead
// of hiding each other.
std::vector<std::vector<TimelineEvent>> assignRows(std::vector<PendingEvent>& pending) {
  std::sort(pending.begin(), pending.end(), [](const PendingEvent& a, const PendingEvent& b) {
    if (a.event.start_ns != b.event.start_ns) return a.event.start_ns < b.event.start_ns;
    return a.event.end_ns > b.event.end_ns;
  });
  std::vector<std::int64_t> row_end;
  std::vector<std::int32_t> row_of(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const TimelineEvent& event = pending[i].event;
    auto row = static_cast<std::size_t>(std::max(pending[i].preferred_row, 0));
    while (row < row_end.size() && row_end[row] > event.start_ns) ++row;
    if (row >= row_end.size()) row_end.resize(row + 1, std::numeric_limits<std::int64_t>::min());
    row_end[row] = event.end_ns;
    row_of[i] = static_cast<std::int32_t>(row);
  }
  // Sized before filling: a million events grown by push_back would hold up to twice their size.
  std::vector<std::size_t> counts(row_end.size(), 0);
  for (const std::int32_t row : row_of) ++counts[static_cast<std::size_t>(row)];
  std::vector<std::vector<TimelineEvent>> rows(row_end.size());
  for (std::size_t row = 0; row < rows.size(); ++row) rows[row].reserve(counts[row]);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    rows[static_cast<std::size_t>(row_of[i])].push_back(pending[i].event);
  }
  std::erase_if(rows, [](const auto& events) { return events.empty(); });
  return rows;
}

}  // namespace

TimelineIndex::TimelineIndex(std::shared_ptr<const trace::Trace> trace,
                             std::shared_ptr<const analyzer::LaunchQueue> queue)
    : trace_(std::move(trace)), queue_(std::move(queue)) {
  if (!trace_) trace_ = std::make_shared<const trace::Trace>();
  const trace::Trace& t = *trace_;

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> stream_lanes;
  std::map<Index, std::size_t> thread_lanes;
  std::vector<std::vector<PendingEvent>> pending;
  const auto streamLane = [&](std::uint32_t device, std::uint32_t stream) -> auto& {
    auto [it, added] = stream_lanes.try_emplace({device, stream}, pending.size());
    if (added) pending.emplace_back();
    return pending[it->second];
  };

  // Whether a kernel is a collective, and else its Tensor Core verdict, is decided once per kernel
  // name; the styles cache it per name id.
  analyzer::KernelVerdicts verdicts(t);
  std::vector<std::int8_t> gpu_style(t.strings.size(), -1);
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const trace::Kernel& k = t.kernels[i];
    TimelineStyle style = TimelineStyle::kHostOp;
    if (!verdicts.onHost(k)) {
      std::int8_t& cached = gpu_style[k.name];
      if (cached < 0) {
        cached = static_cast<std::int8_t>(analyzer::collectiveKindOfKernel(t.str(k.name))
                                              ? TimelineStyle::kCommunicationKernel
                                          : verdicts.of(k).tensor_core ? TimelineStyle::kTensorCoreKernel
                                                                       : TimelineStyle::kKernel);
      }
      style = static_cast<TimelineStyle>(cached);
    }
    streamLane(k.device, k.stream)
        .push_back({{k.start_ns, k.end_ns, static_cast<Index>(i), TimelineEventKind::kKernel, style,
                     shadeOf(k.name)},
                    0});
  }
  for (std::size_t i = 0; i < t.memory_ops.size(); ++i) {
    const trace::MemoryOp& m = t.memory_ops[i];
    const bool copy = m.kind == trace::MemoryOpKind::kMemcpy;
    streamLane(m.device, m.stream)
        .push_back({{m.start_ns, m.end_ns, static_cast<Index>(i), TimelineEventKind::kMemoryOp,
                     copy ? TimelineStyle::kMemcpy : TimelineStyle::kMemset,
                     static_cast<std::uint8_t>(static_cast<int>(m.direction) % kTimelineShadeCount)},
                    0});
  }
  // A counter lane per stream the analysis measured a queue for, rather than one per process and
  // device: a stream's lane then has its own queue right above it, so a kernel that starts late
  // lines up with the depth it waited behind, and real runs have a handful of streams, not
  // hundreds. The queue's streams are per process too (stream numbers are a process's own); in a
  // trace of several processes each gets a lane above the stream lane they share here.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> queues_of_stream;
  bool several_processes = false;
  if (queue_) {
    for (std::size_t q = 0; q < queue_->streams.size(); ++q) {
      const analyzer::StreamQueue& sq = queue_->streams[q];
      queues_of_stream[{sq.device, sq.stream}].push_back(q);
      several_processes = several_processes || sq.pid != queue_->streams.front().pid;
      counters_.emplace_back(sq.points);
    }
  }
  std::vector<std::size_t> order;
  const auto addQueueLanes = [&](std::uint32_t device, std::uint32_t stream) {
    const auto found = queues_of_stream.find({device, stream});
    if (found == queues_of_stream.end()) return;
    for (const std::size_t q : found->second) {
      const analyzer::StreamQueue& sq = queue_->streams[q];
      TimelineLane lane;
      lane.kind = TimelineLaneKind::kQueue;
      lane.device = device;
      lane.stream = stream;
      lane.counter = static_cast<std::int32_t>(q);
      lane.subject = several_processes ? fmt::format("pid {} · {}", sq.pid, streamName(t, device, stream))
                                       : streamName(t, device, stream);
      lane.label = fmt::format("{} · {}", kQueueLaneTitle, lane.subject);
      lanes_.push_back(std::move(lane));
      order.push_back(kNoEvents);
    }
    queues_of_stream.erase(found);
  };
  // Stream lanes come first, ordered by (device, stream), each under its queue; thread lanes
  // follow in thread order.
  for (const auto& [key, slot] : stream_lanes) {
    addQueueLanes(key.first, key.second);
    TimelineLane lane;
    lane.kind = TimelineLaneKind::kStream;
    lane.device = key.first;
    lane.stream = key.second;
    lane.communication = isCommunicationStream(pending[slot]);
    lane.label = streamName(t, key.first, key.second);
    if (lane.communication) lane.label += kCommunicationLaneMark;
    lanes_.push_back(std::move(lane));
    order.push_back(slot);
  }
  // Queues of streams with no events here (the queue came with another trace): after the streams.
  while (!queues_of_stream.empty()) {
    const auto [device, stream] = queues_of_stream.begin()->first;
    addQueueLanes(device, stream);
  }
  for (std::size_t i = 0; i < t.ranges.size(); ++i) {
    const trace::Range& r = t.ranges[i];
    auto [it, added] = thread_lanes.try_emplace(r.thread, pending.size());
    if (added) pending.emplace_back();
    pending[it->second].push_back({{r.start_ns, r.end_ns, static_cast<Index>(i),
                                    TimelineEventKind::kRange, styleOfPhase(r.phase), shadeOf(r.name)},
                                   r.depth});
  }
  for (const auto& [thread, slot] : thread_lanes) {
    TimelineLane lane;
    lane.kind = TimelineLaneKind::kThread;
    lane.thread = thread;
    if (thread == kNone || static_cast<std::size_t>(thread) >= t.threads.size()) {
      lane.label = "ranges without a thread";
    } else {
      const trace::Thread& th = t.threads[static_cast<std::size_t>(thread)];
      const std::string_view name = t.str(th.name);
      // Kineto names threads "thread 25738 (python)" already; others give "python" or nothing.
      if (name.empty()) {
        lane.label = fmt::format("thread {}", th.tid);
      } else if (name.find(std::to_string(th.tid)) != std::string_view::npos) {
        lane.label = std::string(name);
      } else {
        lane.label = fmt::format("thread {} ({})", th.tid, name);
      }
    }
    lanes_.push_back(std::move(lane));
    order.push_back(slot);
  }

  bool any = false;
  const auto extend = [&](std::int64_t start, std::int64_t end) {
    start_ns_ = any ? std::min(start_ns_, start) : start;
    end_ns_ = any ? std::max(end_ns_, end) : end;
    any = true;
  };
  for (const TimelineCounter& counter : counters_) {
    // The queue fills from the launch calls, before the first kernel starts: fitting shows that.
    if (!counter.points().empty()) extend(counter.points().front().time_ns, counter.points().back().time_ns);
  }
  for (std::size_t lane = 0; lane < lanes_.size(); ++lane) {
    lanes_[lane].first_row = static_cast<std::int32_t>(rows_.size());
    if (order[lane] == kNoEvents) continue;
    std::vector<PendingEvent>& events = pending[order[lane]];
    for (const PendingEvent& p : events) extend(p.event.start_ns, p.event.end_ns);
    event_count_ += events.size();
    for (auto& row_events : assignRows(events)) {
      rows_.emplace_back(std::move(row_events));
      row_lane_.push_back(static_cast<std::int32_t>(lane));
    }
    lanes_[lane].row_count = static_cast<std::int32_t>(rows_.size()) - lanes_[lane].first_row;
    std::vector<PendingEvent>().swap(events);  // give the memory back lane by lane
  }
}

const TimelineEvent& TimelineIndex::event(TimelineHit hit) const {
  return rows_[static_cast<std::size_t>(hit.row)][static_cast<std::size_t>(hit.event)];
}

TimelineHit TimelineIndex::hitTest(std::int32_t row, std::int64_t time_ns,
                                   std::int64_t tolerance_ns) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows_.size()) return {};
  const std::int32_t event = rows_[static_cast<std::size_t>(row)].hitTest(time_ns, tolerance_ns);
  return event < 0 ? TimelineHit{} : TimelineHit{row, event};
}

trace::StringId TimelineIndex::nameOf(const TimelineEvent& event) const {
  const auto at = static_cast<std::size_t>(event.source);
  switch (event.kind) {
    case TimelineEventKind::kKernel: return trace_->kernels[at].name;
    case TimelineEventKind::kRange: return trace_->ranges[at].name;
    case TimelineEventKind::kMemoryOp: break;
  }
  return trace::StringTable::kEmpty;
}

std::string_view TimelineIndex::layerOf(const TimelineEvent& event) const {
  const trace::Trace& t = *trace_;
  const auto at = static_cast<std::size_t>(event.source);
  Index range = kNone;
  switch (event.kind) {
    case TimelineEventKind::kKernel: range = t.kernels[at].op_range; break;
    case TimelineEventKind::kMemoryOp: range = t.memory_ops[at].op_range; break;
    case TimelineEventKind::kRange: range = event.source; break;
  }
  // Parents have smaller depths; the bound guards against a cycle in a malformed trace.
  for (std::size_t steps = 0; range != kNone && steps <= t.ranges.size(); ++steps) {
    const trace::Range& r = t.ranges[static_cast<std::size_t>(range)];
    if (r.layer != trace::StringTable::kEmpty) return t.str(r.layer);
    range = r.parent;
  }
  return {};
}

std::string TimelineIndex::describe(const TimelineEvent& event) const {
  const trace::Trace& t = *trace_;
  const auto at = static_cast<std::size_t>(event.source);
  std::string text;
  switch (event.kind) {
    case TimelineEventKind::kKernel: {
      const trace::Kernel& k = t.kernels[at];
      text = fmt::format("{}\n{} · grid [{},{},{}] block [{},{},{}]", t.str(k.name),
                         formatDurationNs(static_cast<double>(event.durationNs())), k.grid[0],
                         k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]);
      if (event.style == TimelineStyle::kTensorCoreKernel) text += "\nTensor Cores (by name)";
      if (event.style == TimelineStyle::kCommunicationKernel) {
        // One kernel per tooltip: naming its family again costs less than keeping it per event.
        const auto kind = analyzer::collectiveKindOfKernel(t.str(k.name));
        text += fmt::format("\ncommunication: {} (includes waiting for the other ranks)",
                            kind ? analyzer::collectiveKindName(*kind) : "collective");
      }
      if (k.op_range != kNone) {
        text += fmt::format("\noperator: {}", t.str(t.ranges[static_cast<std::size_t>(k.op_range)].name));
      }
      break;
    }
    case TimelineEventKind::kMemoryOp: {
      const trace::MemoryOp& m = t.memory_ops[at];
      const bool copy = m.kind == trace::MemoryOpKind::kMemcpy;
      text = fmt::format("{} {}\n{} · {:.3f} MB", copy ? "memcpy" : "memset",
                         copy ? trace::copyDirectionName(m.direction) : "",
                         formatDurationNs(static_cast<double>(event.durationNs())),
                         static_cast<double>(m.bytes) / 1e6);
      if (copy) {
        text += fmt::format(" · {} → {}", trace::memoryKindName(m.src_kind),
                            trace::memoryKindName(m.dst_kind));
      }
      break;
    }
    case TimelineEventKind::kRange: {
      const trace::Range& r = t.ranges[at];
      text = fmt::format("{}\n{} · {} · {}", t.str(r.name),
                         formatDurationNs(static_cast<double>(event.durationNs())),
                         trace::rangeKindName(r.kind), trace::phaseName(r.phase));
      if (r.shapes != trace::StringTable::kEmpty) text += fmt::format("\nshapes {}", t.str(r.shapes));
      if (r.strides != trace::StringTable::kEmpty) text += fmt::format("\nstrides {}", t.str(r.strides));
      break;
    }
  }
  const std::string_view layer = layerOf(event);
  if (!layer.empty()) text += fmt::format("\nlayer: {}", layer);
  return text;
}

std::string TimelineIndex::describeCounter(const TimelineLane& lane, std::int64_t from_ns,
                                           std::int64_t to_ns) const {
  if (lane.kind != TimelineLaneKind::kQueue) return {};
  const TimelineCounter& counter = counterOf(lane);
  const std::int32_t depth = counter.valueAt(from_ns);
  const std::int32_t most = counter.maxIn(from_ns, to_ns);
  // Times count from the first event, as on the axis.
  std::string text = fmt::format("{}\n{} queued and not started at {}", lane.label, depth,
                                 formatDurationNs(static_cast<double>(from_ns - start_ns_)));
  if (most != depth) text += fmt::format("\nup to {} within this pixel ({})", most,
                                         formatDurationNs(static_cast<double>(to_ns - from_ns)));
  text += fmt::format("\nscale: 0 – {} (the stream's deepest)", counter.maxValue());
  return text;
}

std::size_t TimelineIndex::memoryBytes() const {
  std::size_t bytes = sizeof(*this) + row_lane_.capacity() * sizeof(std::int32_t) +
                      rows_.capacity() * sizeof(TimelineRow) + lanes_.capacity() * sizeof(TimelineLane);
  for (const auto& row : rows_) bytes += row.memoryBytes();
  bytes += counters_.capacity() * sizeof(TimelineCounter);
  for (const auto& counter : counters_) bytes += counter.memoryBytes();
  for (const auto& lane : lanes_) bytes += lane.label.capacity() + lane.subject.capacity();
  return bytes;
}

std::string formatDurationNs(double ns) {
  static constexpr const char* kUnits[] = {"ns", "µs", "ms", "s"};
  double value = ns;
  std::size_t unit = 0;
  while (std::abs(value) >= 999.5 && unit + 1 < std::size(kUnits)) {
    value /= 1000.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} ns", value);
  const double magnitude = std::abs(value);
  const int decimals = magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f} {}", value, decimals, kUnits[unit]);
}

}  // namespace ampscope::gui
