#pragma once
// The GPU work that recorded API calls queued, the launch queues it waited in, and which calls
// those queues held back (launch_queue.h explains the queue). The launch queue's measurement and
// the step replay (step_replay.h) both stand on these facts: they are worked out once per trace
// and shared, so that both agree on which calls blocked and neither pays for them twice.
//
// Queues are per process and device: stream numbers and correlation ids are a process's own, and
// one context's streams share the push buffer.

#include <compare>
#include <cstdint>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Launch calls lasting longer than the typical asynchronous call by both of these (twice it, and
// 10 us beyond it), made while their device's queue held at least kDeepQueueItems items, waited on
// a full queue. The depth is
// well under the push buffer's capacity because a kernel with large arguments takes several of
// its entries, and what the trace counts as "queued" starts at the API call, not in the buffer.
inline constexpr std::int64_t kBlockedLaunchExtraNs = 10'000;
// A launch call costs the host a few microseconds (2-10 us on NVIDIA's drivers, more under a
// profiler that records every call): the typical call is never taken as longer than this, so a
// run whose queue is always full cannot make its blocked calls the norm.
inline constexpr std::int64_t kMaxTypicalLaunchNs = 20'000;
inline constexpr double kBlockedLaunchFactor = 2.0;
inline constexpr int kDeepQueueItems = 32;

struct QueuePoint {
  std::int64_t time_ns = 0;
  std::int32_t depth = 0;  // items queued and not started, from time_ns to the next point
};

// Host time the GPU held back, per launch call (aligned with Trace::launches).
struct HostBlocking {
  std::vector<std::uint8_t> waits_for_gpu;     // 1: a synchronising call or blocking copy (host_stalls.h)
  std::vector<std::uint8_t> blocked_on_queue;  // 1: a launch call that waited on a full launch queue
  std::int64_t typical_call_ns = 0;            // median duration of an asynchronous launch call
};

// A process's queue to one device, and one stream of it.
struct QueueKey {
  std::int64_t pid = trace::kUnknownPid;
  std::uint32_t device = 0;
  auto operator<=>(const QueueKey&) const = default;
};
struct StreamKey {
  std::int64_t pid = trace::kUnknownPid;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  auto operator<=>(const StreamKey&) const = default;
};

inline constexpr std::size_t kNotAKernel = static_cast<std::size_t>(-1);

// A kernel, memcpy or memset linked to the API call that queued it.
struct QueuedItem {
  std::int64_t asked_ns = 0;  // start of the API call that queued it
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  trace::Index launch = trace::kNone;
  std::size_t kernel = kNotAKernel;  // its index in Trace::kernels; kNotAKernel: a memcpy or memset
  std::uint32_t queue = 0;           // into QueuedWork::queues()
  std::uint32_t stream = 0;          // into QueuedWork::streams()
  // Items of its queue asked for and not yet started just before asked_ns (what its call found).
  std::int32_t depth_when_asked = 0;
  // It starts before its call: clocks of a few exports disagree by a little, and such an item
  // says nothing about the queue (it is left out of the depths and of the blocking evidence).
  bool before_call = false;
};

// The depth of a queue as a step function: +1 when an item is asked for, -1 when it starts; at
// equal times an item that starts leaves before the next one is queued. Both lists sorted.
// Calls on_asked(k, depth) for the k-th asked time with the depth just before it.
template <typename OnAsked>
std::vector<QueuePoint> depthSteps(const std::vector<std::int64_t>& asked, const std::vector<std::int64_t>& started,
                                   OnAsked on_asked) {
  std::vector<QueuePoint> points;
  points.reserve(asked.size() + started.size());
  std::int32_t depth = 0;
  std::int32_t depth_before_time = 0;  // the depth before the first change at the current time
  const auto step = [&](std::int64_t time, std::int32_t delta) {
    if (points.empty() || points.back().time_ns != time) depth_before_time = depth;
    depth += delta;
    if (!points.empty() && points.back().time_ns == time) points.back().depth = depth;
    else points.push_back({time, depth});
  };
  std::size_t a = 0;
  std::size_t s = 0;
  while (a < asked.size() || s < started.size()) {
    if (s < started.size() && (a == asked.size() || started[s] <= asked[a])) {
      step(started[s++], -1);
    } else {
      step(asked[a], +1);
      on_asked(a++, depth_before_time);
    }
  }
  return points;
}

// Depth just before time_ns (what a call made at time_ns found queued).
std::int32_t depthBefore(const std::vector<QueuePoint>& points, std::int64_t time_ns);

class QueuedWork {
 public:
  // Expects a correlated trace.
  explicit QueuedWork(const trace::Trace& trace);

  // Every GPU record linked to its call: the kernels in trace order, then the memory operations.
  const std::vector<QueuedItem>& items() const { return items_; }
  const std::vector<QueueKey>& queues() const { return queues_; }     // sorted
  const std::vector<StreamKey>& streams() const { return streams_; }  // sorted
  // A queue's depth over the whole trace.
  const std::vector<QueuePoint>& depth(std::uint32_t queue) const { return depths_[queue]; }
  // Each stream's depth over the whole trace (aligned with streams(); empty for a stream whose
  // items all start before their calls). Worked out on request: only a timeline shows them.
  std::vector<std::vector<QueuePoint>> streamDepths() const;
  const HostBlocking& blocking() const { return blocking_; }

 private:
  void collectItems(const trace::Trace& trace);
  void measureQueueDepths();
  void findBlockedCalls(const trace::Trace& trace);

  std::vector<QueuedItem> items_;
  std::vector<QueueKey> queues_;
  std::vector<StreamKey> streams_;
  std::vector<std::vector<QueuePoint>> depths_;  // by queue
  HostBlocking blocking_;
};

}  // namespace ampscope::analyzer
