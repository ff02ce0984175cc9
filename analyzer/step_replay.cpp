#include "analyzer/step_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/data_pipeline.h"
#include "analyzer/host_stalls.h"

namespace ampscope::analyzer {

namespace {

// GPU work launched by the host: the part of the trace the replay moves.
struct GpuItem {
  std::int64_t asked_ns = 0;  // start of the API call that queued it
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t stream = 0;   // device and stream together
  double speedup = 1.0;
};

// Host moments the replay reacts to, in recorded order. At equal times work is queued before a
// call that waits for it, and a loading episode ends last.
enum class EventKind : std::uint8_t { kQueue, kWait, kLoadingEnds };
struct Event {
  std::int64_t host_ns = 0;
  EventKind kind = EventKind::kQueue;
  std::size_t index = 0;  // into the items, the synchronising calls, or the loading durations
};

// Launch latency a kernel had with nothing ahead of it: a low percentile of start minus call over
// the whole trace, so a kernel that waited in a queue is not given its queueing time back.
std::int64_t typicalLaunchLatency(const std::vector<GpuItem>& items) {
  std::vector<std::int64_t> latency;
  latency.reserve(items.size());
  for (const GpuItem& item : items) latency.push_back(std::max<std::int64_t>(0, item.start_ns - item.asked_ns));
  if (latency.empty()) return 0;
  const auto at = latency.begin() + static_cast<std::ptrdiff_t>(latency.size() / 20);
  std::nth_element(latency.begin(), at, latency.end());
  return *at;
}

std::uint64_t streamKey(std::uint32_t device, std::uint32_t stream) {
  return (static_cast<std::uint64_t>(device) << 32) | stream;
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
  std::string collect(const std::vector<double>& kernel_speedup) {
    std::int64_t unlinked_ns = 0;
    std::int64_t linked_ns = 0;
    auto add = [&](std::int64_t start, std::int64_t end, trace::Index launch, std::uint64_t stream, double speedup) {
      if (launch == trace::kNone) {
        if (start >= window_start_ && start < window_end_) unlinked_ns += end - start;
        return;
      }
      const trace::LaunchCall& call = trace_.launches[static_cast<std::size_t>(launch)];
      GpuItem item{call.start_ns, start, end, stream, speedup};
      if (call.start_ns < window_start_) {
        // Work queued before the window holds its stream as recorded.
        double& ready = initial_ready_[stream];
        ready = std::max(ready, static_cast<double>(end));
      } else if (call.start_ns < window_end_) {
        linked_ns += end - start;
        window_items_.push_back(items_.size());
      }
      items_.push_back(item);
    };
    for (std::size_t i = 0; i < trace_.kernels.size(); ++i) {
      const trace::Kernel& k = trace_.kernels[i];
      add(k.start_ns, k.end_ns, k.launch, streamKey(k.device, k.stream), kernel_speedup.empty() ? 1.0 : kernel_speedup[i]);
    }
    for (const trace::MemoryOp& op : trace_.memory_ops) {
      add(op.start_ns, op.end_ns, op.launch, streamKey(op.device, op.stream), 1.0);
    }
    if (linked_ns == 0) return "no GPU work in the steady steps is linked to the API call that launched it";
    if (unlinked_ns * 20 > linked_ns + unlinked_ns) {
      return "over 5% of the steady steps' GPU time has no recorded API call to replay it from";
    }
    launch_latency_ = typicalLaunchLatency(items_);

    std::unordered_set<trace::Index> training_threads;
    for (const trace::LaunchCall& call : trace_.launches) {
      if (call.start_ns < window_start_ || call.start_ns >= window_end_) continue;
      training_threads.insert(call.thread);
      if (isSynchronizingCall(trace_.str(call.name))) waits_.push_back(&call);
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

  // Replays the window, as recorded or with the scenario's changes; returns how long it takes, GPU
  // work that runs past its end included.
  double run(bool apply_scenario, bool hide_data_loading) const {
    std::vector<Event> events;
    events.reserve(window_items_.size() + waits_.size() + loading_.size());
    for (std::size_t i : window_items_) events.push_back({items_[i].asked_ns, EventKind::kQueue, i});
    for (std::size_t i = 0; i < waits_.size(); ++i) events.push_back({waits_[i]->start_ns, EventKind::kWait, i});
    if (apply_scenario && hide_data_loading) {
      for (std::size_t i = 0; i < loading_.size(); ++i) events.push_back({loading_[i].first, EventKind::kLoadingEnds, i});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return std::tie(a.host_ns, a.kind, a.index) < std::tie(b.host_ns, b.kind, b.index);
    });

    std::unordered_map<std::uint64_t, double> ready = initial_ready_;
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
          double& stream_ready = ready.try_emplace(item.stream, 0.0).first->second;
          const double start = std::max(static_cast<double>(item.asked_ns + latency) + shift, stream_ready);
          const double duration = static_cast<double>(item.end_ns - item.start_ns);
          const double speedup = apply_scenario ? item.speedup : 1.0;
          stream_ready = start + (std::isinf(speedup) ? 0.0 : duration / speedup);
          done_replayed = std::max(done_replayed, stream_ready);
          done_recorded = std::max(done_recorded, static_cast<double>(item.end_ns));
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
  std::unordered_map<std::uint64_t, double> initial_ready_;
  std::vector<const trace::LaunchCall*> waits_;
  std::vector<std::pair<std::int64_t, std::int64_t>> loading_;  // (end, duration)
  std::int64_t launch_latency_ = 0;
};

}  // namespace

StepReplay replaySteadySteps(const trace::Trace& trace, const IterationSummary& iterations,
                             const ReplayScenario& scenario) {
  StepReplay out;
  Replayer replayer(trace, iterations);
  if (!replayer.hasWindow()) {
    out.note = "no steady iterations to replay";
    return out;
  }
  if (!scenario.kernel_speedup.empty() && scenario.kernel_speedup.size() != trace.kernels.size()) {
    out.note = "kernel speedups do not match the trace's kernels";
    return out;
  }
  out.note = replayer.collect(scenario.kernel_speedup);
  if (!out.note.empty()) return out;
  // The scenario is measured against the replay of the trace as recorded, so that what the model
  // leaves out (dependencies across streams) affects both sides alike.
  const double baseline = replayer.run(false, false);
  const double changed = replayer.run(true, scenario.hide_data_loading);
  out.original_ns = replayer.recordedSpan();
  out.baseline_ns = static_cast<std::int64_t>(baseline);
  out.replayed_ns = static_cast<std::int64_t>(changed);
  out.speedup = changed > 0 ? baseline / changed : 1.0;
  out.done = true;
  return out;
}

}  // namespace ampscope::analyzer
