#include "analyzer/launch_queue.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analyzer/host_stalls.h"
#include "analyzer/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;

// A process's queue to one device.
using QueueKey = std::pair<std::int64_t, std::uint32_t>;
using StreamKey = std::tuple<std::int64_t, std::uint32_t, std::uint32_t>;

struct Item {
  std::int64_t asked_ns = 0;  // start of the API call that queued it
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  Index launch = kNone;
  QueueKey queue;
  StreamKey stream;
};

std::string ms(std::int64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }
std::string us(std::int64_t ns) { return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3); }

std::int64_t processOf(const trace::Trace& trace, std::int64_t pid, Index launch) {
  if (pid != trace::kUnknownPid) return pid;
  const trace::LaunchCall& call = trace.launches[static_cast<std::size_t>(launch)];
  return call.thread == kNone ? trace::kUnknownPid : trace.threads[static_cast<std::size_t>(call.thread)].pid;
}

// Items whose API call is in the trace and that start no earlier than it (clocks of a few
// exports disagree by a little; such an item says nothing about the queue).
std::vector<Item> queuedItems(const trace::Trace& trace) {
  std::vector<Item> items;
  items.reserve(trace.kernels.size() + trace.memory_ops.size());
  const auto add = [&](const auto& record) {
    if (record.launch == kNone) return;
    const std::int64_t asked = trace.launches[static_cast<std::size_t>(record.launch)].start_ns;
    if (record.start_ns < asked) return;
    const std::int64_t pid = processOf(trace, record.pid, record.launch);
    items.push_back({asked, record.start_ns, record.end_ns, record.launch, {pid, record.device},
                     {pid, record.device, record.stream}});
  };
  for (const trace::Kernel& k : trace.kernels) add(k);
  for (const trace::MemoryOp& m : trace.memory_ops) add(m);
  return items;
}

// The depth of a queue as a step function: +1 when an item is asked for, -1 when it starts.
template <typename Key>
std::map<Key, std::vector<QueuePoint>> depthSeries(const std::vector<Item>& items, Key Item::*key) {
  // When each item of a queue was asked for and when it started, each list sorted on its own (as
  // recorded, each is nearly in order already) and then merged.
  struct Changes {
    std::vector<std::int64_t> asked;
    std::vector<std::int64_t> started;
  };
  std::map<Key, Changes> changes;
  // Items come in time order, mostly on the queue of the one before: its changes are found once
  // per run of them (map nodes do not move).
  const Key* last_key = nullptr;
  Changes* last_changes = nullptr;
  for (const Item& item : items) {
    if (last_key == nullptr || !(*last_key == item.*key)) {
      const auto found = changes.try_emplace(item.*key).first;
      last_key = &found->first;
      last_changes = &found->second;
    }
    last_changes->asked.push_back(item.asked_ns);
    last_changes->started.push_back(item.start_ns);
  }
  std::map<Key, std::vector<QueuePoint>> series;
  for (auto& [k, c] : changes) {
    std::sort(c.asked.begin(), c.asked.end());
    std::sort(c.started.begin(), c.started.end());
    std::vector<QueuePoint>& points = series[k];
    points.reserve(c.asked.size() + c.started.size());
    std::int32_t depth = 0;
    const auto step = [&](std::int64_t time, std::int32_t delta) {
      depth += delta;
      if (!points.empty() && points.back().time_ns == time) points.back().depth = depth;
      else points.push_back({time, depth});
    };
    std::size_t a = 0;
    std::size_t s = 0;
    while (a < c.asked.size() || s < c.started.size()) {
      // At equal times an item that starts leaves before the next one is queued.
      if (s < c.started.size() && (a == c.asked.size() || c.started[s] <= c.asked[a])) step(c.started[s++], -1);
      else step(c.asked[a++], +1);
    }
  }
  return series;
}

// Depth just before time_ns (what a call made at time_ns found queued).
std::int32_t depthBefore(const std::vector<QueuePoint>& points, std::int64_t time_ns) {
  auto at = std::lower_bound(points.begin(), points.end(), time_ns,
                             [](const QueuePoint& p, std::int64_t t) { return p.time_ns < t; });
  return at == points.begin() ? 0 : (at - 1)->depth;
}

std::int64_t median(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// The typical duration of an asynchronous launch call that did not wait: the median over calls
// made while their queue was far from full (those cannot have waited on it). A run whose queue is
// always full has none; then the 5th percentile of all calls, since most of them waited. Either
// way no more than kMaxTypicalLaunchNs.
std::int64_t typicalLaunchCall(const trace::Trace& trace, const std::vector<Item>& items,
                               const std::map<QueueKey, std::vector<QueuePoint>>& queues,
                               const std::vector<std::uint8_t>& waits_for_gpu) {
  std::vector<std::int64_t> shallow;
  std::vector<std::int64_t> all;
  std::vector<std::uint8_t> seen(trace.launches.size(), 0);
  for (const Item& item : items) {
    const auto index = static_cast<std::size_t>(item.launch);
    if (seen[index] || waits_for_gpu[index]) continue;
    seen[index] = 1;
    const trace::LaunchCall& call = trace.launches[index];
    all.push_back(call.end_ns - call.start_ns);
    if (depthBefore(queues.at(item.queue), call.start_ns) < kDeepQueueItems) shallow.push_back(all.back());
  }
  std::int64_t typical = 0;
  if (!shallow.empty()) {
    typical = median(std::move(shallow));
  } else if (!all.empty()) {
    const auto at = all.begin() + static_cast<std::ptrdiff_t>(all.size() / 20);
    std::nth_element(all.begin(), at, all.end());
    typical = *at;
  }
  return std::min(typical, kMaxTypicalLaunchNs);
}

HostBlocking hostBlocking(const trace::Trace& trace, const std::vector<Item>& items,
                          const std::map<QueueKey, std::vector<QueuePoint>>& queues) {
  HostBlocking out;
  out.waits_for_gpu = hostBlockingCalls(trace);
  out.typical_call_ns = typicalLaunchCall(trace, items, queues, out.waits_for_gpu);
  out.blocked_on_queue.assign(trace.launches.size(), 0);
  const std::int64_t threshold =
      std::max(out.typical_call_ns + kBlockedLaunchExtraNs,
               static_cast<std::int64_t>(kBlockedLaunchFactor * static_cast<double>(out.typical_call_ns)));
  for (const Item& item : items) {
    const auto index = static_cast<std::size_t>(item.launch);
    const trace::LaunchCall& call = trace.launches[index];
    if (call.end_ns - call.start_ns <= threshold || out.waits_for_gpu[index]) continue;
    if (depthBefore(queues.at(item.queue), call.start_ns) >= kDeepQueueItems) out.blocked_on_queue[index] = 1;
  }
  return out;
}

// The time-weighted median depth of a step function over [from, to).
double medianDepth(const std::vector<QueuePoint>& points, std::int64_t from, std::int64_t to) {
  std::map<std::int32_t, std::int64_t> time_at_depth;
  std::int32_t depth = depthBefore(points, from + 1);
  std::int64_t at = from;
  auto next = std::upper_bound(points.begin(), points.end(), from,
                               [](std::int64_t t, const QueuePoint& p) { return t < p.time_ns; });
  for (; next != points.end() && next->time_ns < to; ++next) {
    time_at_depth[depth] += next->time_ns - at;
    at = next->time_ns;
    depth = next->depth;
  }
  time_at_depth[depth] += to - at;
  const std::int64_t half = (to - from) / 2;
  std::int64_t seen = 0;
  for (const auto& [d, ns] : time_at_depth) {
    seen += ns;
    if (seen > half) return d;
  }
  return depth;
}

// How long the queue's device ran its work within [from, to): the union of its items' intervals
// (a file of several GPUs is judged on the busiest queue's device, not on all of them at once).
std::int64_t busyWithin(const std::vector<Item>& items, const QueueKey& queue, std::int64_t from, std::int64_t to) {
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
  for (const Item& item : items) {
    if (item.queue != queue) continue;
    const std::int64_t start = std::max(item.start_ns, from);
    const std::int64_t end = std::min(item.end_ns, to);
    if (start < end) intervals.emplace_back(start, end);
  }
  std::sort(intervals.begin(), intervals.end());
  std::int64_t busy = 0;
  std::int64_t covered = std::numeric_limits<std::int64_t>::min();
  for (const auto& [start, end] : intervals) {
    if (end <= covered) continue;
    busy += end - std::max(start, covered);
    covered = end;
  }
  return busy;
}

std::pair<std::int64_t, std::int64_t> windowOf(const IterationSummary& iterations, const std::vector<Item>& items,
                                               bool& per_step) {
  if (const auto steady = iterations.steadyWindow()) {
    per_step = true;
    return *steady;
  }
  per_step = false;
  std::int64_t from = std::numeric_limits<std::int64_t>::max();
  std::int64_t to = std::numeric_limits<std::int64_t>::min();
  // Without steps: the window of GPU work, from the first item's start to the last one's end
  // (calls made long before, at a program's start, would stretch it over idle time).
  for (const Item& item : items) {
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

HostBlocking findHostBlocking(const trace::Trace& trace) {
  const std::vector<Item> items = queuedItems(trace);
  return hostBlocking(trace, items, depthSeries(items, &Item::queue));
}

LaunchQueue measureLaunchQueue(const trace::Trace& trace, const IterationSummary& iterations) {
  LaunchQueue q;
  if (recordedOnCpu(trace)) {
    q.note = "recorded on the CPU: the CPU backend's ops are not queued to a GPU";
    return q;
  }
  const std::vector<Item> items = queuedItems(trace);
  const auto [from, to] = windowOf(iterations, items, q.per_step);
  if (items.empty() || from >= to) {
    q.note = "no GPU work is linked to the API call that queued it";
    return q;
  }
  q.window_ns = to - from;
  const auto queues = depthSeries(items, &Item::queue);
  const HostBlocking blocking = hostBlocking(trace, items, queues);
  q.typical_launch_call_ns = blocking.typical_call_ns;

  std::map<QueueKey, std::size_t> items_in_window;
  std::vector<std::int64_t> launch_to_start;
  for (const Item& item : items) {
    // A step owns the work its host asked for; a window of GPU work the work that ran in it.
    const std::int64_t at = q.per_step ? item.asked_ns : item.start_ns;
    if (at < from || at >= to) continue;
    ++items_in_window[item.queue];
    launch_to_start.push_back(item.start_ns - item.asked_ns);
  }
  if (items_in_window.empty()) {
    q.note = "no GPU work in the window is linked to the API call that queued it";
    return q;
  }
  const auto busiest = std::max_element(items_in_window.begin(), items_in_window.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  const std::vector<QueuePoint>& main_queue = queues.at(busiest->first);
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
  q.gpu_busy_fraction = static_cast<double>(busyWithin(items, busiest->first, from, to)) / static_cast<double>(q.window_ns);

  for (auto& [key, points] : depthSeries(items, &Item::stream)) {
    q.streams.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::move(points)});
  }
  q.measured = true;
  judgePacing(q);
  return q;
}

}  // namespace ampscope::analyzer
