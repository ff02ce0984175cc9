#include "analyzer/steps/queued_work.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

std::vector<std::pair<std::int64_t, std::int32_t>> steps(const std::vector<QueuePoint>& points) {
  std::vector<std::pair<std::int64_t, std::int32_t>> out;
  for (const QueuePoint& p : points) out.emplace_back(p.time_ns, p.depth);
  return out;
}

TEST(DepthSteps, CountsItemsAskedForAndNotStarted) {
  std::vector<std::int32_t> found;
  const auto points = depthSteps({10, 20, 30}, {25, 40, 50}, [&](std::size_t k, std::int32_t depth) {
    EXPECT_EQ(k, found.size());
    found.push_back(depth);
  });
  using Steps = std::vector<std::pair<std::int64_t, std::int32_t>>;
  EXPECT_EQ(steps(points), (Steps{{10, 1}, {20, 2}, {25, 1}, {30, 2}, {40, 1}, {50, 0}}));
  EXPECT_EQ(found, (std::vector<std::int32_t>{0, 1, 1}));
}

TEST(DepthSteps, AtEqualTimesTheStartLeavesFirstAndACallFindsTheDepthBeforeThatTime) {
  std::vector<std::int32_t> found;
  // Two items asked for at 10; the first starts at 20 as the third is asked for.
  const auto points = depthSteps({10, 10, 20}, {20, 30, 40}, [&](std::size_t, std::int32_t depth) { found.push_back(depth); });
  using Steps = std::vector<std::pair<std::int64_t, std::int32_t>>;
  EXPECT_EQ(steps(points), (Steps{{10, 2}, {20, 2}, {30, 1}, {40, 0}}));
  // Both calls at 10 found an empty queue; the one at 20 found the two queued before 20.
  EXPECT_EQ(found, (std::vector<std::int32_t>{0, 0, 2}));
  EXPECT_EQ(depthBefore(points, 10), 0);
  EXPECT_EQ(depthBefore(points, 20), 2);
  EXPECT_EQ(depthBefore(points, 21), 2);
}

// A trace of one thread launching kernels on two streams of one device, and a copy from a second
// process; correlated by hand.
trace::Trace queuedTrace() {
  trace::Trace trace;
  const trace::Index thread = trace.threadIndex(7, 7);
  const trace::Index other = trace.threadIndex(9, 9);
  const auto name = trace.strings.intern("cudaLaunchKernel");
  const auto launch = [&](std::int64_t start, std::int64_t end, trace::Index on) {
    trace::LaunchCall call;
    call.start_ns = start;
    call.end_ns = end;
    call.name = name;
    call.thread = on;
    trace.launches.push_back(call);
    return static_cast<trace::Index>(trace.launches.size() - 1);
  };
  const auto kernel = [&](trace::Index from, std::uint32_t stream, std::int64_t start, std::int64_t end) {
    trace::Kernel k;
    k.start_ns = start;
    k.end_ns = end;
    k.stream = stream;
    k.launch = from;
    trace.kernels.push_back(k);
  };
  kernel(launch(100, 110, thread), 7, 200, 300);
  kernel(launch(120, 130, thread), 8, 210, 260);
  kernel(launch(140, 150, thread), 7, 300, 400);
  kernel(trace::kNone, 7, 400, 500);                   // no recorded call
  kernel(launch(600, 610, thread), 7, 590, 700);       // starts before its call
  trace::MemoryOp copy;
  copy.start_ns = 260;
  copy.end_ns = 280;
  copy.stream = 3;
  copy.launch = launch(250, 255, other);
  trace.memory_ops.push_back(copy);
  return trace;
}

TEST(QueuedWork, ItemsAreTheLinkedRecordsWithTheirQueuesAndStreamsInKeyOrder) {
  const trace::Trace trace = queuedTrace();
  const QueuedWork queued(trace);
  ASSERT_EQ(queued.items().size(), 5u);
  EXPECT_EQ(queued.queues(), (std::vector<QueueKey>{{7, 0}, {9, 0}}));
  EXPECT_EQ(queued.streams(), (std::vector<StreamKey>{{7, 0, 7}, {7, 0, 8}, {9, 0, 3}}));
  const std::vector<QueuedItem>& items = queued.items();
  EXPECT_EQ(items[0].kernel, 0u);
  EXPECT_EQ(items[3].kernel, 4u);
  EXPECT_TRUE(items[3].before_call);
  EXPECT_EQ(items[4].kernel, kNotAKernel);
  EXPECT_EQ(items[4].queue, 1u);
  EXPECT_EQ(items[4].stream, 2u);
  EXPECT_EQ(items[1].stream, 1u);
  // The third kernel's call found the first two queued and not started.
  EXPECT_EQ(items[2].depth_when_asked, 2);
  EXPECT_EQ(items[0].asked_ns, 100);
}

TEST(QueuedWork, DepthsLeaveOutItemsThatStartBeforeTheirCalls) {
  const trace::Trace trace = queuedTrace();
  const QueuedWork queued(trace);
  using Steps = std::vector<std::pair<std::int64_t, std::int32_t>>;
  EXPECT_EQ(steps(queued.depth(0)), (Steps{{100, 1}, {120, 2}, {140, 3}, {200, 2}, {210, 1}, {300, 0}}));
  const auto streams = queued.streamDepths();
  ASSERT_EQ(streams.size(), 3u);
  EXPECT_EQ(steps(streams[1]), (Steps{{120, 1}, {210, 0}}));
}

TEST(QueuedWork, ACallLongerThanTypicalBehindADeepQueueBlocked) {
  trace::Trace trace;
  const trace::Index thread = trace.threadIndex(7, 7);
  const auto name = trace.strings.intern("cudaLaunchKernel");
  // 40 quick calls fill the queue; the 41st waits 100 us for a slot.
  for (int i = 0; i < 41; ++i) {
    trace::LaunchCall call;
    call.start_ns = 1000 * i;
    call.end_ns = call.start_ns + (i == 40 ? 100'000 : 2'000);
    call.name = name;
    call.thread = thread;
    trace.launches.push_back(call);
    trace::Kernel k;
    k.start_ns = 1'000'000 + 1000 * i;
    k.end_ns = k.start_ns + 1000;
    k.launch = i;
    trace.kernels.push_back(k);
  }
  const QueuedWork queued(trace);
  EXPECT_EQ(queued.blocking().typical_call_ns, 2'000);
  EXPECT_EQ(queued.blocking().blocked_on_queue[40], 1);
  EXPECT_EQ(queued.blocking().blocked_on_queue[39], 0);
  EXPECT_EQ(queued.blocking().waits_for_gpu[40], 0);
}

}  // namespace
}  // namespace ampscope::analyzer
