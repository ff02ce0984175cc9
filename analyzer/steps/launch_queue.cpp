#include "analyzer/steps/launch_queue.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "analyzer/steps/gpu_activity.h"
#include "analyzer/verdicts/kernel_verdicts.h"
#include "base/median.h"

namespace ampscope::analyzer {

namespace {

std::string ms(std::int64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }
// Microseconds below a millisecond: a launch's wait ranges from microseconds to a queue's depth
// of a large model's kernels.
std::string us(std::int64_t ns) { return ns >= 1'000'000 ? ms(ns) : fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3); }

// The time-weighted median depth of a step function over [from, to).
double medianDepth(const std::vector<QueuePoint>& points, std::int64_t from, std::int64_t to) {
  std::int32_t depth = depthBefore(points, from + 1);
  auto first = std::upper_bound(points.begin(), points.end(), from,
                                [](std::int64_t t, const QueuePoint& p) { return t < p.time_ns; });
  auto last = std::lower_bound(first, points.end(), to, [](const QueuePoint& p, std::int64_t t) { return p.time_ns < t; });
  // Time at each depth the window sees, indexed from the shallowest (a window holds hundreds of
  // thousands of points over a few dozen depths).
  std::int32_t shallowest = depth;
  std::int32_t deepest = depth;
  for (auto p = first; p != last; ++p) {
    shallowest = std::min(shallowest, p->depth);
    deepest = std::max(deepest, p->depth);
  }
  std::vector<std::int64_t> time_at_depth(static_cast<std::size_t>(deepest - shallowest) + 1, 0);
  const auto time_at = [&](std::int32_t d) -> std::int64_t& { return time_at_depth[static_cast<std::size_t>(d - shallowest)]; };
  std::int64_t at = from;
  for (auto p = first; p != last; ++p) {
    time_at(depth) += p->time_ns - at;
    at = p->time_ns;
    depth = p->depth;
  }
  time_at(depth) += to - at;
  const std::int64_t half = (to - from) / 2;
  std::int64_t seen = 0;
  for (std::size_t d = 0; d < time_at_depth.size(); ++d) {
    seen += time_at_depth[d];
    if (seen > half) return shallowest + static_cast<std::int32_t>(d);
  }
  return depth;
}

std::pair<std::int64_t, std::int64_t> windowOf(const IterationSummary& iterations,
                                               const std::vector<QueuedItem>& items, bool& per_step) {
  if (const auto steady = iterations.steadyWindow(StepClock::kHost)) {
    per_step = true;
    return *steady;
  }
  per_step = false;
  std::int64_t from = std::numeric_limits<std::int64_t>::max();
  std::int64_t to = std::numeric_limits<std::int64_t>::min();
  // Without steps: the window of GPU work, from the first item's start to the last one's end
  // (calls made long before, at a program's start, would stretch it over idle time).
  for (const QueuedItem& item : items) {
    if (item.before_call) continue;
    from = std::min(from, item.start_ns);
    to = std::max(to, item.end_ns);
  }
  return {from, to};
}

void judgePacing(LaunchQueue& q) {
  const double busy = 100.0 * q.gpu_busy_fraction;
  if (q.gpu_busy_fraction >= kGpuBoundBusyShare && q.median_depth >= kDeepMedianDepth) {
    q.pacing = Pacing::kGpuBound;
    q.pacing_evidence = fmt::format("the GPU is busy {:.0f}% of the window behind a queue of {:.0f} items (median; "
                                    "a launch waits {} for its item to start)",
                                    busy, q.median_depth, us(q.median_launch_to_start_ns));
  } else if (1.0 - q.gpu_busy_fraction >= kHostBoundIdleShare && q.median_depth < kDeepQueueItems &&
             q.host_blocked_fraction < kHostBoundMaxBlockedShare) {
    q.pacing = Pacing::kHostBound;
    q.pacing_evidence = fmt::format("the queue is far from full (median {:.0f} items, launches block from about {}) "
                                    "and the GPU idles {:.0f}% of the window while the host is blocked by it only "
                                    "{:.0f}% of the {}: it runs out of work the host has not issued yet",
                                    q.median_depth, kDeepQueueItems, 100.0 - busy, 100.0 * q.host_blocked_fraction,
                                    q.per_step ? "step" : "window");
  } else {
    q.pacing = Pacing::kMixed;
    q.pacing_evidence = fmt::format("the GPU is busy {:.0f}% of the window with a median queue of {:.0f} items: "
                                    "neither a full queue nor an idle GPU sets the pace throughout",
                                    busy, q.median_depth);
  }
  if (q.host_blocked_ns_per_iteration > 0) {
    q.pacing_evidence += fmt::format("; the host is blocked {} {} ({} in synchronising calls, {} in {} launch "
                                     "calls that waited on a full queue)",
                                     ms(q.host_blocked_ns_per_iteration), q.per_step ? "per step" : "in the window",
                                     ms(q.sync_ns_per_iteration), ms(q.blocked_launch_ns_per_iteration),
                                     q.blocked_launches);
  }
}

}  // namespace

const char* pacingName(Pacing pacing) {
  switch (pacing) {
    case Pacing::kGpuBound: return "gpu_bound";
    case Pacing::kHostBound: return "host_bound";
    case Pacing::kMixed: return "mixed";
    case Pacing::kUnknown: break;
  }
  return "unknown";
}

LaunchQueue measureLaunchQueue(const trace::Trace& trace, const IterationSummary& iterations) {
  return measureLaunchQueue(trace, iterations, QueuedWork(trace));
}

LaunchQueue measureLaunchQueue(const trace::Trace& trace, const IterationSummary& iterations, const QueuedWork& queued) {
  LaunchQueue q;
  if (recordedOnCpu(trace)) {
    q.note = "recorded on the CPU: the CPU backend's ops are not queued to a GPU";
    return q;
  }
  const std::vector<QueuedItem>& items = queued.items();
  const bool any_queued = std::any_of(items.begin(), items.end(), [](const QueuedItem& item) { return !item.before_call; });
  const auto [from, to] = windowOf(iterations, items, q.per_step);
  if (!any_queued || from >= to) {
    q.note = "no GPU work is linked to the API call that queued it";
    return q;
  }
  q.window_ns = to - from;
  const HostBlocking& blocking = queued.blocking();
  q.typical_launch_call_ns = blocking.typical_call_ns;

  std::vector<std::size_t> items_in_window(queued.queues().size(), 0);  // by queue
  std::vector<std::int64_t> launch_to_start;
  for (const QueuedItem& item : items) {
    if (item.before_call) continue;
    // A step owns the work its host asked for; a window of GPU work the work that ran in it.
    const std::int64_t at = q.per_step ? item.asked_ns : item.start_ns;
    if (at < from || at >= to) continue;
    ++items_in_window[item.queue];
    launch_to_start.push_back(item.start_ns - item.asked_ns);
  }
  if (launch_to_start.empty()) {
    q.note = "no GPU work in the window is linked to the API call that queued it";
    return q;
  }
  // The first of the busiest in key order, as queues are numbered.
  const auto busiest = static_cast<std::uint32_t>(
      std::max_element(items_in_window.begin(), items_in_window.end()) - items_in_window.begin());
  const std::vector<QueuePoint>& main_queue = queued.depth(busiest);
  q.median_depth = medianDepth(main_queue, from, to);
  q.max_depth = depthBefore(main_queue, from + 1);
  for (const QueuePoint& p : main_queue) {
    if (p.time_ns >= from && p.time_ns < to) q.max_depth = std::max<std::int64_t>(q.max_depth, p.depth);
  }
  q.median_launch_to_start_ns = median(std::move(launch_to_start));

  std::int64_t sync_ns = 0;
  std::int64_t blocked_ns = 0;
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    const trace::LaunchCall& call = trace.launches[i];
    if (call.start_ns < from || call.start_ns >= to) continue;
    if (blocking.waits_for_gpu[i]) {
      sync_ns += call.end_ns - call.start_ns;
    } else if (blocking.blocked_on_queue[i]) {
      blocked_ns += std::max<std::int64_t>(0, call.end_ns - call.start_ns - q.typical_launch_call_ns);
      ++q.blocked_launches;
    }
  }
  const auto per = static_cast<std::int64_t>(q.per_step ? std::max<std::size_t>(1, iterations.steadyCount()) : 1);
  q.sync_ns_per_iteration = sync_ns / per;
  q.blocked_launch_ns_per_iteration = blocked_ns / per;
  q.host_blocked_ns_per_iteration = q.sync_ns_per_iteration + q.blocked_launch_ns_per_iteration;
  q.host_blocked_fraction = static_cast<double>(q.host_blocked_ns_per_iteration) /
                            (static_cast<double>(q.window_ns) / static_cast<double>(per));
  // A file of several GPUs is judged on the busiest queue's device, not on all of them at once.
  const GpuActivity device(trace, GpuActivity::Work::kKernelsAndCopies, queued.queues()[busiest].device);
  q.gpu_busy_fraction = static_cast<double>(device.busyWithin(from, to)) / static_cast<double>(q.window_ns);

  std::vector<std::vector<QueuePoint>> stream_depths = queued.streamDepths();
  for (std::size_t s = 0; s < stream_depths.size(); ++s) {
    if (stream_depths[s].empty()) continue;  // only items that start before their calls
    const StreamKey& key = queued.streams()[s];
    q.streams.push_back({key.pid, key.device, key.stream, std::move(stream_depths[s])});
  }
  q.measured = true;
  judgePacing(q);
  return q;
}

}  // namespace ampscope::analyzer
