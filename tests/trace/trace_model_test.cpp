#include "trace/trace_model.h"

#include <gtest/gtest.h>

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
  EXPECT_LE(sizeof(Range), 96u);
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

}  // namespace
}  // namespace ampscope::trace
