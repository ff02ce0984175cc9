#include "analyzer/step_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/data_pipeline.h"
#include "analyzer/launch_queue.h"

namespace ampscope::analyzer {

namespace {

constexpr std::size_t kNotAKernel = static_cast<std::size_t>(-1);

// GPU work launched by the host: the part of the trace the replay moves.
struct GpuItem {
  std::int64_t asked_ns = 0;  // when the API call queued it (its start; its end if it blocked)
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::size_t stream = 0;  // dense index of (process, device, stream)
  std::size_t queue = 0;   // dense index of (process, device): the launch queue it waited in
  std::size_t kernel = kNotAKernel;  // its index in Trace::kernels; kNotAKernel: a memcpy or memset
};

// Host moments the replay reacts to, in recorded order. At equal times work is queued before a
// call that waits for it, and a loading episode ends last.
enum class EventKind : std::uint8_t { kQueue, kBlockedLaunch, kWait, kLoadingEnds };
struct Event {
  std::int64_t host_ns = 0;
  EventKind kind = EventKind::kQueue;
  std::size_t index = 0;  // into the items, the synchronising calls, or the loading durations
};

// Launch latency an item has with nothing ahead of it: the median of call-to-start over items
// whose stream was idle when they were asked for (an item behind others would count its queueing
// time, which in a run behind a full queue is milliseconds); the smallest one when no stream was
// ever idle.
std::int64_t typicalLaunchLatency(const std::vector<GpuItem>& items, std::size_t streams) {
  std::vector<std::vector<const GpuItem*>> by_stream(streams);
  for (const GpuItem& item : items) by_stream[item.stream].push_back(&item);
  std::vector<std::int64_t> idle;
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  for (auto& stream : by_stream) {
    std::sort(stream.begin(), stream.end(), [](const GpuItem* a, const GpuItem* b) { return a->start_ns < b->start_ns; });
    std::int64_t previous_end = std::numeric_limits<std::int64_t>::min();
    for (const GpuItem* item : stream) {
      const std::int64_t latency = std::max<std::int64_t>(0, item->start_ns - item->asked_ns);
      smallest = std::min(smallest, latency);
      if (previous_end <= item->asked_ns) idle.push_back(latency);
      previous_end = std::max(previous_end, item->end_ns);
    }
  }
  if (idle.empty()) return smallest == std::numeric_limits<std::int64_t>::max() ? 0 : smallest;
  const auto middle = idle.begin() + static_cast<std::ptrdiff_t>(idle.size() / 2);
  std::nth_element(idle.begin(), middle, idle.end());
  return *middle;
}

// Dense indices for keys met in any order.
template <typename Key>
class DenseIndex {
 public:
  std::size_t of(const Key& key) {
    // GPU records come in time order, mostly on the stream of the one before.
    if (last_ != nullptr && last_->first == key) return last_->second;
    last_ = &*index_.try_emplace(key, index_.size()).first;
    return last_->second;
  }
  std::size_t size() const { return index_.size(); }

 private:
  std::map<Key, std::size_t> index_;
  const std::pair<const Key, std::size_t>* last_ = nullptr;  // map nodes do not move
};

std::int64_t processOf(const trace::Trace& trace, std::int64_t pid, const trace::LaunchCall& call) {
  if (pid != trace::kUnknownPid || call.thread == trace::kNone) return pid;
  return trace.threads[static_cast<std::size_t>(call.thread)].pid;
}

class Replayer {
 public:
  Replayer(const trace::Trace& trace, const IterationSummary& iterations)
      : trace_(trace) {
    for (const Iteration& it : iterations.iterations) {
      if (it.warmup) continue;
      window_start_ = std::min(window_start_, it.start_ns);
      window_end_ = std::max(window_end_, it.end_ns);
    }
  }

  bool hasWindow() const { return window_start_ < window_end_; }

  // Collects the GPU items, synchronising calls and loading episodes; returns a note when the
  // trace cannot be replayed.
  std::string collect() {
    std::int64_t unlinked_ns = 0;
    std::int64_t linked_ns = 0;
    blocking_ = findHostBlocking(trace_);
    DenseIndex<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>> streams;
    DenseIndex<std::pair<std::int64_t, std::uint32_t>> queues;
    auto add = [&](const auto& record, std::size_t kernel) {
      if (record.launch == trace::kNone) {
        if (record.start_ns >= window_start_ && record.start_ns < window_end_) unlinked_ns += record.end_ns - record.start_ns;
        return;
      }
      const trace::LaunchCall& call = trace_.launches[static_cast<std::size_t>(record.launch)];
      const std::int64_t pid = processOf(trace_, record.pid, call);
      // A launch that waited on a full queue queued its work when the wait ended.
      const bool blocked = blocking_.blocked_on_queue[static_cast<std::size_t>(record.launch)] != 0;
      GpuItem item{blocked ? call.end_ns : call.start_ns, record.start_ns, record.end_ns,
                   streams.of({pid, record.device, record.stream}), queues.of({pid, record.device}), kernel};
      if (call.start_ns < window_start_ && record.start_ns < window_start_) {
        // Work running when the window opens holds its stream as recorded.
        double& ready = initial_ready_[item.stream];
        ready = std::max(ready, static_cast<double>(record.end_ns));
      } else if (call.start_ns < window_end_) {
        // Work queued before the window that starts in it is replayed too: behind a full queue it
        // is what the window's first launches wait for, and it runs at the scenario's speed.
        linked_ns += record.end_ns - record.start_ns;
        window_items_.push_back(items_.size());
      }
      queue_of_launch_.emplace_back(record.launch, item.queue);
      items_.push_back(item);
    };
    for (std::size_t i = 0; i < trace_.kernels.size(); ++i) add(trace_.kernels[i], i);
    for (const trace::MemoryOp& op : trace_.memory_ops) add(op, kNotAKernel);
    stream_count_ = streams.size();
    started_in_queue_.assign(queues.size(), {});
    for (std::size_t i = 0; i < items_.size(); ++i) started_in_queue_[items_[i].queue].emplace_back(items_[i].start_ns, i);
    for (auto& started : started_in_queue_) std::sort(started.begin(), started.end());
    std::sort(queue_of_launch_.begin(), queue_of_launch_.end());
    if (linked_ns == 0) return "no GPU work in the steady steps is linked to the API call that launched it";
    if (unlinked_ns * 20 > linked_ns + unlinked_ns) {
      return "over 5% of the steady steps' GPU time has no recorded API call to replay it from";
    }
    launch_latency_ = typicalLaunchLatency(items_, stream_count_);

    std::unordered_set<trace::Index> training_threads;
    for (std::size_t i = 0; i < trace_.launches.size(); ++i) {
      const trace::LaunchCall& call = trace_.launches[i];
      if (call.start_ns < window_start_ || call.start_ns >= window_end_) continue;
      training_threads.insert(call.thread);
      if (blocking_.waits_for_gpu[i]) waits_.push_back(&call);
      else if (blocking_.blocked_on_queue[i]) blocked_calls_.push_back(&call);
    }
    // Only loading on threads that issue GPU work holds the step back; a loader thread of its own
    // already overlaps.
    for (const trace::Range& range : trace_.ranges) {
      if (range.start_ns < window_start_ || range.start_ns >= window_end_ || !training_threads.contains(range.thread) ||
          !isOutermostData(trace_, range)) {
        continue;
      }
      loading_.push_back({range.end_ns, range.end_ns - range.start_ns});
    }
    return {};
  }

  // Replays the window, as recorded (scenario nullptr) or with the scenario's changes; returns how
  // long it takes, GPU work that runs past its end included.
  double run(const ReplayScenario* scenario) const {
    std::vector<Event> events;
    events.reserve(window_items_.size() + blocked_calls_.size() + waits_.size() + loading_.size());
    for (std::size_t i : window_items_) events.push_back({items_[i].asked_ns, EventKind::kQueue, i});
    for (std::size_t i = 0; i < blocked_calls_.size(); ++i) {
      events.push_back({blocked_calls_[i]->start_ns, EventKind::kBlockedLaunch, i});
    }
    for (std::size_t i = 0; i < waits_.size(); ++i) events.push_back({waits_[i]->start_ns, EventKind::kWait, i});
    if (scenario && scenario->hide_data_loading) {
      for (std::size_t i = 0; i < loading_.size(); ++i) events.push_back({loading_[i].first, EventKind::kLoadingEnds, i});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return std::tie(a.host_ns, a.kind, a.index) < std::tie(b.host_ns, b.kind, b.index);
    });

    std::vector<double> ready(stream_count_, 0.0);
    for (const auto& [stream, end] : initial_ready_) ready[stream] = end;
    std::vector<double> replayed_start(items_.size(), std::numeric_limits<double>::quiet_NaN());
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
          const GpuItem& item = items_[e.index];
          const std::int64_t latency = std::clamp<std::int64_t>(item.start_ns - item.asked_ns, 0, launch_latency_);
          double& stream_ready = ready[item.stream];
          const double start = std::max(static_cast<double>(item.asked_ns + latency) + shift, stream_ready);
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
          const auto own = static_cast<double>(std::min(call.end_ns - call.start_ns, blocking_.typical_call_ns));
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
    const std::size_t queue = queueOfLaunch(launch);
    if (queue == kNoQueue) return std::nullopt;
    const auto& started = started_in_queue_[queue];
    auto at = std::upper_bound(started.begin(), started.end(), std::make_pair(call.end_ns, items_.size()));
    // The latest item already replayed (one queued by another thread later may not be yet).
    for (int looked = 0; at != started.begin() && looked < 64; ++looked) {
      --at;
      const std::size_t index = at->second;
      if (std::isnan(replayed_start[index])) continue;
      const GpuItem& item = items_[index];
      const double gap = static_cast<double>(call.end_ns - item.start_ns);
      const double duration = static_cast<double>(item.end_ns - item.start_ns);
      const double speedup = speedupOf(item, scenario);
      const double running = std::min(gap, duration);
      return replayed_start[index] + (std::isinf(speedup) ? 0.0 : running / speedup) + std::max(0.0, gap - duration);
    }
    return std::nullopt;
  }

  // The factor the scenario divides the item's duration by (1 as recorded, and for copies).
  static double speedupOf(const GpuItem& item, const ReplayScenario* scenario) {
    if (!scenario || scenario->kernel_speedup.empty() || item.kernel == kNotAKernel) return 1.0;
    return scenario->kernel_speedup[item.kernel];
  }

  std::size_t queueOfLaunch(trace::Index launch) const {
    const auto found = std::lower_bound(queue_of_launch_.begin(), queue_of_launch_.end(), std::make_pair(launch, std::size_t{0}));
    return found != queue_of_launch_.end() && found->first == launch ? found->second : kNoQueue;
  }

  std::int64_t recordedSpan() const {
    std::int64_t end = window_end_;
    for (std::size_t i : window_items_) end = std::max(end, items_[i].end_ns);
    return end - window_start_;
  }

 private:
  const trace::Trace& trace_;
  std::int64_t window_start_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t window_end_ = std::numeric_limits<std::int64_t>::min();
  std::vector<GpuItem> items_;
  std::vector<std::size_t> window_items_;
  static constexpr std::size_t kNoQueue = static_cast<std::size_t>(-1);
  std::unordered_map<std::size_t, double> initial_ready_;
  std::size_t stream_count_ = 0;
  HostBlocking blocking_;
  std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> started_in_queue_;  // (start, item), sorted
  std::vector<std::pair<trace::Index, std::size_t>> queue_of_launch_;  // (launch, queue), sorted
  std::vector<const trace::LaunchCall*> waits_;
  std::vector<const trace::LaunchCall*> blocked_calls_;
  std::vector<std::pair<std::int64_t, std::int64_t>> loading_;  // (end, duration)
  std::int64_t launch_latency_ = 0;
};

}  // namespace

struct StepReplayer::Recorded {
  Recorded(const trace::Trace& trace, const IterationSummary& iterations) : replayer(trace, iterations) {}
  Replayer replayer;
  std::string note;  // why the trace cannot be replayed; empty when it can
  double baseline_ns = 0;
};

StepReplayer::StepReplayer(const trace::Trace& trace, const IterationSummary& iterations)
    : kernels_(trace.kernels.size()), recorded_(std::make_unique<Recorded>(trace, iterations)) {
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
