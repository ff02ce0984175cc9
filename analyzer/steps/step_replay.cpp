#include "analyzer/steps/step_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iterator>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyzer/core/sorted_runs.h"
#include "analyzer/steps/data_pipeline.h"
#include "analyzer/steps/queued_work.h"

namespace ampscope::analyzer {

namespace {

// Host moments the replay reacts to, in recorded order. At equal times work is queued before a
// call that waits for it, and a loading episode ends last.
enum class EventKind : std::uint8_t { kQueue, kBlockedLaunch, kWait, kLoadingEnds };
struct Event {
  std::int64_t host_ns = 0;
  EventKind kind = EventKind::kQueue;
  std::size_t index = 0;  // into the items, the synchronising calls, or the loading durations
  bool operator<(const Event& other) const {
    return std::tie(host_ns, kind, index) < std::tie(other.host_ns, other.kind, other.index);
  }
};

// Launch latency an item has with nothing ahead of it: the median of call-to-start over items
// whose stream was idle when they were asked for (an item behind others would count its queueing
// time, which in a run behind a full queue is milliseconds); the smallest one when no stream was
// ever idle.
// queued_at: by item, when the replay queues it (Replayer::collectItems).
std::int64_t typicalLaunchLatency(const std::vector<QueuedItem>& items, const std::vector<std::int64_t>& queued_at,
                                  std::size_t streams) {
  // (start, item) by stream: kernels and copies come each in start order, so a stream's list is
  // a few sorted runs.
  std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> by_stream(streams);
  for (std::size_t i = 0; i < items.size(); ++i) by_stream[items[i].stream].emplace_back(items[i].start_ns, i);
  std::vector<std::int64_t> idle;
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  for (auto& stream : by_stream) {
    sortMostlySorted(stream);
    std::int64_t previous_end = std::numeric_limits<std::int64_t>::min();
    for (const auto& [start_ns, i] : stream) {
      const std::int64_t latency = std::max<std::int64_t>(0, items[i].start_ns - queued_at[i]);
      smallest = std::min(smallest, latency);
      if (previous_end <= queued_at[i]) idle.push_back(latency);
      previous_end = std::max(previous_end, items[i].end_ns);
    }
  }
  if (idle.empty()) return smallest == std::numeric_limits<std::int64_t>::max() ? 0 : smallest;
  const auto middle = idle.begin() + static_cast<std::ptrdiff_t>(idle.size() / 2);
  std::nth_element(idle.begin(), middle, idle.end());
  return *middle;
}

class Replayer {
 public:
  Replayer(const trace::Trace& trace, const IterationSummary& iterations, std::shared_ptr<const QueuedWork> queued)
      : trace_(trace), queued_(std::move(queued)) {
    for (const Iteration& it : iterations.iterations) {
      if (it.warmup) continue;
      window_start_ = std::min(window_start_, it.host_start_ns);
      window_end_ = std::max(window_end_, it.host_end_ns);
    }
  }

  bool hasWindow() const { return window_start_ < window_end_; }

  // Collects the GPU items, synchronising calls and loading episodes; returns a note when the
  // trace cannot be replayed.
  std::string collect() {
    const std::int64_t linked_ns = collectItems();
    if (linked_ns == 0) return "no GPU work in the steady steps is linked to the API call that launched it";
    const std::int64_t unlinked_ns = unlinkedWithinWindow();
    if (unlinked_ns * 20 > linked_ns + unlinked_ns) {
      return "over 5% of the steady steps' GPU time has no recorded API call to replay it from";
    }
    launch_latency_ = typicalLaunchLatency(items(), queued_at_, queued_->streams().size());
    collectHostCalls();
    recorded_events_ = recordedEvents();
    return {};
  }

  // When each item is queued in the replay (its call's start; its end when the call waited on a
  // full queue: the work was queued when the wait ended), what holds each stream when the window
  // opens, the items the window replays, and each queue's items by start. Returns the recorded
  // GPU time of the items replayed.
  std::int64_t collectItems() {
    const std::vector<QueuedItem>& all = items();
    const HostBlocking& blocking = queued_->blocking();
    std::int64_t linked_ns = 0;
    queued_at_.reserve(all.size());
    queue_of_launch_.assign(trace_.launches.size(), kNoQueue);
    started_in_queue_.assign(queued_->queues().size(), {});
    for (std::size_t i = 0; i < all.size(); ++i) {
      const QueuedItem& item = all[i];
      const auto launch = static_cast<std::size_t>(item.launch);
      const trace::LaunchCall& call = trace_.launches[launch];
      queued_at_.push_back(blocking.blocked_on_queue[launch] != 0 ? call.end_ns : call.start_ns);
      if (queue_of_launch_[launch] == kNoQueue) queue_of_launch_[launch] = item.queue;
      started_in_queue_[item.queue].emplace_back(item.start_ns, i);
      if (call.start_ns < window_start_ && item.start_ns < window_start_) {
        // Work running when the window opens holds its stream as recorded.
        double& ready = initial_ready_[item.stream];
        ready = std::max(ready, static_cast<double>(item.end_ns));
      } else if (call.start_ns < window_end_) {
        // Work queued before the window that starts in it is replayed too: behind a full queue it
        // is what the window's first launches wait for, and it runs at the scenario's speed.
        linked_ns += item.end_ns - item.start_ns;
        window_items_.push_back(i);
      }
    }
    // Kernels and memory operations come each in start order: each queue's list is two sorted runs.
    for (auto& started : started_in_queue_) sortMostlySorted(started);
    return linked_ns;
  }

  // GPU time in the window with no recorded API call to replay it from.
  std::int64_t unlinkedWithinWindow() const {
    std::int64_t unlinked_ns = 0;
    const auto add = [&](const auto& record) {
      if (record.launch == trace::kNone && record.start_ns >= window_start_ && record.start_ns < window_end_) {
        unlinked_ns += record.end_ns - record.start_ns;
      }
    };
    for (const trace::Kernel& kernel : trace_.kernels) add(kernel);
    for (const trace::MemoryOp& op : trace_.memory_ops) add(op);
    return unlinked_ns;
  }

  // The window's synchronising calls and calls blocked on a full queue, and the data loading on
  // the threads that issue GPU work.
  void collectHostCalls() {
    const HostBlocking& blocking = queued_->blocking();
    // By thread index, with a last slot for calls of no known thread.
    std::vector<std::uint8_t> training_threads(trace_.threads.size() + 1, 0);
    const auto slot = [&](trace::Index thread) {
      return thread == trace::kNone ? trace_.threads.size() : static_cast<std::size_t>(thread);
    };
    for (std::size_t i = 0; i < trace_.launches.size(); ++i) {
      const trace::LaunchCall& call = trace_.launches[i];
      if (call.start_ns < window_start_ || call.start_ns >= window_end_) continue;
      training_threads[slot(call.thread)] = 1;
      if (blocking.waits_for_gpu[i]) waits_.push_back(&call);
      else if (blocking.blocked_on_queue[i]) blocked_calls_.push_back(&call);
    }
    // Only loading on threads that issue GPU work holds the step back; a loader thread of its own
    // already overlaps.
    for (const trace::Range& range : trace_.ranges) {
      if (range.start_ns < window_start_ || range.start_ns >= window_end_ || !training_threads[slot(range.thread)] ||
          !isOutermostData(trace_, range)) {
        continue;
      }
      loading_.push_back({range.end_ns, range.end_ns - range.start_ns});
    }
  }

  // The host moments of every scenario, in the order they are replayed (sorted once: each
  // scenario replays them all).
  std::vector<Event> recordedEvents() const {
    std::vector<Event> events;
    events.reserve(window_items_.size() + blocked_calls_.size() + waits_.size());
    for (std::size_t i : window_items_) events.push_back({queued_at_[i], EventKind::kQueue, i});
    for (std::size_t i = 0; i < blocked_calls_.size(); ++i) {
      events.push_back({blocked_calls_[i]->start_ns, EventKind::kBlockedLaunch, i});
    }
    for (std::size_t i = 0; i < waits_.size(); ++i) events.push_back({waits_[i]->start_ns, EventKind::kWait, i});
    std::sort(events.begin(), events.end());
    return events;
  }

  // The recorded events with the ends of the loading episodes merged in, in replay order.
  std::vector<Event> eventsWithLoadingEnds() const {
    std::vector<Event> loading_ends;
    loading_ends.reserve(loading_.size());
    for (std::size_t i = 0; i < loading_.size(); ++i) loading_ends.push_back({loading_[i].first, EventKind::kLoadingEnds, i});
    std::sort(loading_ends.begin(), loading_ends.end());
    std::vector<Event> events;
    events.reserve(recorded_events_.size() + loading_ends.size());
    std::merge(recorded_events_.begin(), recorded_events_.end(), loading_ends.begin(), loading_ends.end(),
               std::back_inserter(events));
    return events;
  }

  // Replays the window, as recorded (scenario nullptr) or with the scenario's changes; returns how
  // long it takes, GPU work that runs past its end included.
  double run(const ReplayScenario* scenario) const {
    std::vector<Event> with_loading_ends;
    if (scenario && scenario->hide_data_loading && !loading_.empty()) with_loading_ends = eventsWithLoadingEnds();
    const std::vector<Event>& events = with_loading_ends.empty() ? recorded_events_ : with_loading_ends;

    std::vector<double> ready(queued_->streams().size(), 0.0);
    for (const auto& [stream, end] : initial_ready_) ready[stream] = end;
    std::vector<double> replayed_start(items().size(), std::numeric_limits<double>::quiet_NaN());
    double shift = 0;  // replayed host clock minus recorded host clock
    double done_recorded = static_cast<double>(window_start_);
    double done_replayed = done_recorded;
    for (const auto& [stream, end] : initial_ready_) {
      done_recorded = std::max(done_recorded, end);
      done_replayed = std::max(done_replayed, end);
    }
    for (const Event& e : events) {
      switch (e.kind) {
        case EventKind::kQueue: {
          const QueuedItem& item = items()[e.index];
          const std::int64_t queued_at = queued_at_[e.index];
          const std::int64_t latency = std::clamp<std::int64_t>(item.start_ns - queued_at, 0, launch_latency_);
          double& stream_ready = ready[item.stream];
          const double start = std::max(static_cast<double>(queued_at + latency) + shift, stream_ready);
          replayed_start[e.index] = start;
          const double duration = static_cast<double>(item.end_ns - item.start_ns);
          const double speedup = speedupOf(item, scenario);
          stream_ready = start + (std::isinf(speedup) ? 0.0 : duration / speedup);
          done_replayed = std::max(done_replayed, stream_ready);
          done_recorded = std::max(done_recorded, static_cast<double>(item.end_ns));
          break;
        }
        case EventKind::kBlockedLaunch: {
          // The call waited until the GPU freed a slot: until the item that started last before
          // the wait ended. Replayed, it waits for that item's replayed start (and the part of
          // that item the wait still covered), but never less than a call that did not wait.
          const trace::LaunchCall& call = *blocked_calls_[e.index];
          const std::optional<double> release = releaseTime(call, replayed_start, scenario);
          if (!release) break;
          const auto own = static_cast<double>(std::min(call.end_ns - call.start_ns, queued_->blocking().typical_call_ns));
          const double replayed_end = std::max(static_cast<double>(call.start_ns) + shift + own, *release);
          shift = replayed_end - static_cast<double>(call.end_ns);
          break;
        }
        case EventKind::kWait: {
          const trace::LaunchCall& call = *waits_[e.index];
          const auto start = static_cast<double>(call.start_ns);
          const auto end = static_cast<double>(call.end_ns);
          // What the call did after the GPU caught up (or all of it, when it never waited).
          const double after_gpu = end - std::clamp(done_recorded, start, end);
          const double replayed_end = std::max(start + shift, done_replayed) + after_gpu;
          shift = replayed_end - end;
          break;
        }
        case EventKind::kLoadingEnds:
          shift -= static_cast<double>(loading_[e.index].second);
          break;
      }
    }
    return std::max(static_cast<double>(window_end_) + shift, done_replayed) - static_cast<double>(window_start_);
  }

  // When the replayed GPU frees the queue slot a blocked call waited for; nullopt when no item of
  // its queue started before the wait ended (then the call keeps its recorded duration).
  std::optional<double> releaseTime(const trace::LaunchCall& call, const std::vector<double>& replayed_start,
                                    const ReplayScenario* scenario) const {
    const trace::Index launch = static_cast<trace::Index>(&call - trace_.launches.data());
    const std::uint32_t queue = queueOfLaunch(launch);
    if (queue == kNoQueue) return std::nullopt;
    const auto& started = started_in_queue_[queue];
    auto at = std::upper_bound(started.begin(), started.end(), std::make_pair(call.end_ns, items().size()));
    // The latest item already replayed (one queued by another thread later may not be yet).
    for (int looked = 0; at != started.begin() && looked < 64; ++looked) {
      --at;
      const std::size_t index = at->second;
      if (std::isnan(replayed_start[index])) continue;
      const QueuedItem& item = items()[index];
      const double gap = static_cast<double>(call.end_ns - item.start_ns);
      const double duration = static_cast<double>(item.end_ns - item.start_ns);
      const double speedup = speedupOf(item, scenario);
      const double running = std::min(gap, duration);
      return replayed_start[index] + (std::isinf(speedup) ? 0.0 : running / speedup) + std::max(0.0, gap - duration);
    }
    return std::nullopt;
  }

  // The factor the scenario divides the item's duration by (1 as recorded, and for copies).
  static double speedupOf(const QueuedItem& item, const ReplayScenario* scenario) {
    if (!scenario || scenario->kernel_speedup.empty() || item.kernel == kNotAKernel) return 1.0;
    return scenario->kernel_speedup[item.kernel];
  }

  std::uint32_t queueOfLaunch(trace::Index launch) const {
    return queue_of_launch_[static_cast<std::size_t>(launch)];
  }

  std::int64_t recordedSpan() const {
    std::int64_t end = window_end_;
    for (std::size_t i : window_items_) end = std::max(end, items()[i].end_ns);
    return end - window_start_;
  }

 private:
  const std::vector<QueuedItem>& items() const { return queued_->items(); }

  const trace::Trace& trace_;
  std::shared_ptr<const QueuedWork> queued_;
  std::int64_t window_start_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t window_end_ = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> queued_at_;  // by item: when the replay queues it
  std::vector<std::size_t> window_items_;
  static constexpr std::uint32_t kNoQueue = static_cast<std::uint32_t>(-1);
  std::unordered_map<std::size_t, double> initial_ready_;
  std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> started_in_queue_;  // (start, item), sorted
  std::vector<std::uint32_t> queue_of_launch_;  // by launch: the queue of its first item; kNoQueue: none
  std::vector<const trace::LaunchCall*> waits_;
  std::vector<const trace::LaunchCall*> blocked_calls_;
  std::vector<std::pair<std::int64_t, std::int64_t>> loading_;  // (end, duration)
  std::vector<Event> recorded_events_;  // sorted
  std::int64_t launch_latency_ = 0;
};

}  // namespace

struct StepReplayer::Recorded {
  Recorded(const trace::Trace& trace, const IterationSummary& iterations, std::shared_ptr<const QueuedWork> queued)
      : replayer(trace, iterations, std::move(queued)) {}
  Replayer replayer;
  std::string note;  // why the trace cannot be replayed; empty when it can
  double baseline_ns = 0;
};

StepReplayer::StepReplayer(const trace::Trace& trace, const IterationSummary& iterations)
    : StepReplayer(trace, iterations, std::make_shared<const QueuedWork>(trace)) {}

StepReplayer::StepReplayer(const trace::Trace& trace, const IterationSummary& iterations,
                           std::shared_ptr<const QueuedWork> queued)
    : kernels_(trace.kernels.size()), recorded_(std::make_unique<Recorded>(trace, iterations, std::move(queued))) {
  Recorded& r = *recorded_;
  if (!r.replayer.hasWindow()) {
    r.note = "no steady iterations to replay";
    return;
  }
  r.note = r.replayer.collect();
  // Every scenario is measured against the replay of the trace as recorded, so that what the
  // model leaves out (dependencies across streams) affects both sides alike.
  if (r.note.empty()) r.baseline_ns = r.replayer.run(nullptr);
}

StepReplayer::~StepReplayer() = default;

StepReplay StepReplayer::replay(const ReplayScenario& scenario) const {
  StepReplay out;
  const Recorded& r = *recorded_;
  if (!r.replayer.hasWindow()) {
    out.note = r.note;
    return out;
  }
  if (!scenario.kernel_speedup.empty() && scenario.kernel_speedup.size() != kernels_) {
    out.note = "kernel speedups do not match the trace's kernels";
    return out;
  }
  out.note = r.note;
  if (!out.note.empty()) return out;
  const double changed = r.replayer.run(&scenario);
  out.original_ns = r.replayer.recordedSpan();
  out.baseline_ns = static_cast<std::int64_t>(r.baseline_ns);
  out.replayed_ns = static_cast<std::int64_t>(changed);
  out.speedup = changed > 0 ? r.baseline_ns / changed : 1.0;
  out.done = true;
  return out;
}

StepReplay replaySteadySteps(const trace::Trace& trace, const IterationSummary& iterations,
                             const ReplayScenario& scenario) {
  return StepReplayer(trace, iterations).replay(scenario);
}

}  // namespace ampscope::analyzer
