#include "trace/trace_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ampscope::trace {
namespace {

TEST(TraceModelTest, SortByTimePutsParentsBeforeChildrenOnEqualStart) {
  Trace trace;
  Range child;
  child.start_ns = 100;
  child.end_ns = 150;
  Range parent;
  parent.start_ns = 100;
  parent.end_ns = 300;
  Range earlier;
  earlier.start_ns = 50;
  earlier.end_ns = 60;
  trace.ranges = {child, parent, earlier};
  trace.sortByTime();
  EXPECT_EQ(trace.ranges[0].start_ns, 50);
  EXPECT_EQ(trace.ranges[1].end_ns, 300);
  EXPECT_EQ(trace.ranges[2].end_ns, 150);
}

TEST(TraceModelTest, ThreadIndexAddsEachPidTidPairOnce) {
  Trace trace;
  const Index a = trace.threadIndex(10, 11);
  const Index b = trace.threadIndex(10, 12);
  EXPECT_NE(a, b);
  EXPECT_EQ(trace.threadIndex(10, 11), a);
  EXPECT_EQ(trace.threads.size(), 2u);
}

TEST(TraceModelTest, EventsStayWellUnderTwoHundredBytes) {
  // The memory budget is 200 bytes per event including strings and vector slack.
  EXPECT_LE(sizeof(Kernel), 96u);
  EXPECT_LE(sizeof(Range), 104u);
  EXPECT_LE(sizeof(LaunchCall), 64u);
  EXPECT_LE(sizeof(MemoryOp), 64u);
}

TEST(TraceModelTest, EventCountAddsEveryKind) {
  Trace trace;
  trace.kernels.resize(3);
  trace.launches.resize(2);
  trace.ranges.resize(4);
  trace.memory_ops.resize(1);
  EXPECT_EQ(trace.eventCount(), 10u);
}

TEST(TraceModelTest, SortByTimeOrdersRangesAsAStableSortOfStartThenLongestFirst) {
  // Many ties on both start and end, in a shuffled order: each range keeps its file position
  // among equals, which the name records. Enough ranges (70,000) that two threads sort them, each
  // half of the keys on its own.
  std::mt19937 random(7);
  std::vector<Range> ranges(70'000);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    ranges[i].start_ns = static_cast<std::int64_t>(random() % 700);
    ranges[i].end_ns = ranges[i].start_ns + static_cast<std::int64_t>(random() % 5);
    ranges[i].name = static_cast<StringId>(i);
  }
  std::vector<Range> expected = ranges;
  std::stable_sort(expected.begin(), expected.end(), [](const Range& a, const Range& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  for (const unsigned threads : {1u, 2u}) {
    Trace trace;
    trace.ranges = ranges;
    trace.sortByTime(threads);
    ASSERT_EQ(trace.ranges.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(trace.ranges[i].name, expected[i].name) << "position " << i << ", " << threads << " threads";
    }
  }
}

// A launch on thread `thread` with a correlation id, and a kernel of that id.
void addLaunchedKernel(Trace& trace, Index thread, std::uint64_t correlation) {
  LaunchCall launch;
  launch.thread = thread;
  launch.correlation_id = correlation;
  trace.launches.push_back(launch);
  Kernel kernel;
  kernel.correlation_id = correlation;
  trace.kernels.push_back(kernel);
}

TEST(TraceModelTest, OneLaunchingProcessOwnsEveryGpuRecordEvenWithoutItsLaunch) {
  Trace trace;
  addLaunchedKernel(trace, trace.threadIndex(40, 1), 1);
  Kernel before_the_file;
  before_the_file.correlation_id = 99;
  trace.kernels.push_back(before_the_file);
  trace.assignLaunchingProcesses();
  EXPECT_EQ(trace.kernels[0].pid, 40);
  EXPECT_EQ(trace.kernels[1].pid, 40);
}

TEST(TraceModelTest, SeveralLaunchingProcessesEachOwnTheirCorrelationIds) {
  Trace trace;
  addLaunchedKernel(trace, trace.threadIndex(40, 1), 1);
  addLaunchedKernel(trace, trace.threadIndex(41, 1), 2);
  addLaunchedKernel(trace, trace.threadIndex(41, 2), 3);
  trace.launches.push_back(trace.launches[0]);  // id 1 again, from process 41: no longer known
  trace.launches.back().thread = trace.threadIndex(41, 1);
  Kernel unlaunched;
  unlaunched.correlation_id = 99;
  trace.kernels.push_back(unlaunched);
  trace.assignLaunchingProcesses();
  EXPECT_EQ(trace.kernels[0].pid, kUnknownPid);
  EXPECT_EQ(trace.kernels[1].pid, 41);
  EXPECT_EQ(trace.kernels[2].pid, 41);
  EXPECT_EQ(trace.kernels[3].pid, kUnknownPid);
}

}  // namespace
}  // namespace ampscope::trace
