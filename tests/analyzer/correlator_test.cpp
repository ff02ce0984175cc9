#include "analyzer/correlate/correlator.h"
#include "tests/analyzer/imported_trace.h"
#include "tests/analyzer/synthetic_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ampscope::analyzer {
namespace {

using trace::Index;
using trace::Phase;

class CorrelatorTest : public ::testing::Test {
 protected:
  Index addRange(const char* name, std::int64_t start, std::int64_t end, Index thread,
                 trace::RangeKind kind = trace::RangeKind::kOperator) {
    trace::Range range;
    range.name = trace_.strings.intern(name);
    range.start_ns = start;
    range.end_ns = end;
    range.thread = thread;
    range.kind = kind;
    trace_.ranges.push_back(range);
    return static_cast<Index>(trace_.ranges.size() - 1);
  }
  void addLaunch(std::uint64_t correlation, std::int64_t at, Index thread) {
    trace::LaunchCall launch;
    launch.correlation_id = correlation;
    launch.start_ns = at;
    launch.end_ns = at + 5;
    launch.thread = thread;
    trace_.launches.push_back(launch);
  }
  void addKernel(std::uint64_t correlation, std::int64_t start, std::int64_t pid = trace::kUnknownPid) {
    trace::Kernel kernel;
    kernel.pid = pid;
    kernel.correlation_id = correlation;
    kernel.start_ns = start;
    kernel.end_ns = start + 50;
    kernel.name = trace_.strings.intern("volta_sgemm_128x64_nn");
    trace_.kernels.push_back(kernel);
  }
  const trace::Range& opOfKernel(std::size_t k) const {
    return trace_.ranges[static_cast<std::size_t>(trace_.kernels[k].op_range)];
  }

  trace::Trace trace_;
};

TEST_F(CorrelatorTest, KernelGoesToTheInnermostOperatorEnclosingItsLaunchOnTheLaunchingThread) {
  const Index main = trace_.threadIndex(1, 1);
  const Index other = trace_.threadIndex(1, 2);
  addRange("ProfilerStep#1", 0, 1000, main, trace::RangeKind::kAnnotation);
  addRange("aten::linear", 100, 400, main);
  addRange("aten::addmm", 150, 300, main);
  addRange("aten::other_thread_op", 100, 400, other);  // encloses the time, wrong thread
  addLaunch(7, 200, main);
  addLaunch(8, 350, main);   // inside linear, after addmm ended
  addLaunch(9, 600, main);   // only inside the step marker
  addKernel(7, 210);
  addKernel(8, 360);
  addKernel(9, 610);
  addKernel(10, 700);  // no launch call in the trace
  trace_.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace_);
  EXPECT_EQ(counts.kernels, 4u);
  EXPECT_EQ(counts.kernels_linked_to_launch, 3u);
  EXPECT_EQ(counts.kernels_attributed_to_op, 2u);
  EXPECT_EQ(trace_.import_stats.gpu_records_without_launch, 1u);
  EXPECT_EQ(trace_.str(opOfKernel(0).name), "aten::addmm");
  EXPECT_EQ(trace_.str(opOfKernel(1).name), "aten::linear");
  EXPECT_EQ(trace_.kernels[2].op_range, trace::kNone);  // a step marker is not an operator
  EXPECT_EQ(trace_.kernels[3].launch, trace::kNone);
  EXPECT_EQ(trace_.str(trace_.ranges[static_cast<std::size_t>(topLevelOperator(trace_, trace_.kernels[0].op_range))].name),
            "aten::linear");
}

TEST_F(CorrelatorTest, CorrelationIdsAreScopedByProcess) {
  const Index first = trace_.threadIndex(100, 1);
  const Index second = trace_.threadIndex(200, 1);
  addRange("aten::mm", 0, 1000, first);
  addRange("aten::addmm", 0, 1000, second);
  addLaunch(5, 100, first);
  addLaunch(5, 110, second);  // the same id in the other process
  addLaunch(6, 120, second);  // an id only the second process used
  addKernel(5, 200, 200);
  addKernel(5, 210, 100);
  addKernel(6, 220, 100);               // no launch with id 6 in its own process
  addKernel(6, 230);                    // process unknown: the one process that used id 6
  addKernel(5, 240);                    // process unknown, id used by two processes: no link
  trace_.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace_);
  EXPECT_EQ(counts.kernels_linked_to_launch, 3u);
  EXPECT_EQ(trace_.str(opOfKernel(0).name), "aten::addmm");
  EXPECT_EQ(trace_.str(opOfKernel(1).name), "aten::mm");
  EXPECT_EQ(trace_.kernels[2].launch, trace::kNone);
  EXPECT_EQ(trace_.str(opOfKernel(3).name), "aten::addmm");
  EXPECT_EQ(trace_.kernels[4].launch, trace::kNone);
}

TEST_F(CorrelatorTest, GpuRecordsOfAOneProcessFileTakeTheProcessOfTheirLaunch) {
  const Index main = trace_.threadIndex(42, 1);
  addLaunch(1, 100, main);
  addKernel(1, 150);
  addKernel(99, 160);  // launched before the file began: the file's one process launched it
  trace_.assignLaunchingProcesses();
  EXPECT_EQ(trace_.kernels[0].pid, 42);
  EXPECT_EQ(trace_.kernels[1].pid, 42);
  const Index other = trace_.threadIndex(43, 1);
  addLaunch(2, 200, other);
  addKernel(2, 250);
  addKernel(98, 260);
  trace_.assignLaunchingProcesses();
  EXPECT_EQ(trace_.kernels[2].pid, 43);
  EXPECT_EQ(trace_.kernels[3].pid, trace::kUnknownPid);  // two processes: no guess
}

TEST_F(CorrelatorTest, NestingGivesParentsAndDepthsAndTreatsTouchingRangesAsSiblings) {
  const Index main = trace_.threadIndex(1, 1);
  addRange("outer", 0, 100, main);
  addRange("first", 10, 50, main);
  addRange("second", 50, 90, main);  // starts where "first" ends
  trace_.sortByTime();
  test::correlateAsImported(trace_);
  EXPECT_EQ(trace_.ranges[0].depth, 0);
  EXPECT_EQ(trace_.ranges[1].parent, 0);
  EXPECT_EQ(trace_.ranges[2].parent, 0);
  EXPECT_EQ(trace_.ranges[2].depth, 1);
}

TEST_F(CorrelatorTest, NestingDeeperThanTheDepthFieldHoldsSaturatesAndKeepsItsParents) {
  const Index main = trace_.threadIndex(1, 1);
  const std::int64_t levels = trace::Range::kMaxDepth + 45;  // Python frames under with_stack nest this deep
  for (std::int64_t i = 0; i < levels; ++i) addRange("frame", i, 10'000 - i, main, trace::RangeKind::kPython);
  trace_.sortByTime();
  test::correlateAsImported(trace_);
  for (std::size_t i = 0; i < trace_.ranges.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(trace_.ranges[i].depth), std::min<std::size_t>(i, trace::Range::kMaxDepth)) << i;
    EXPECT_EQ(trace_.ranges[i].parent, static_cast<Index>(i) - 1) << i;
  }
}

TEST_F(CorrelatorTest, BackwardOpTakesTheLayerOfTheForwardOpWithItsSequenceNumber) {
  const Index main = trace_.threadIndex(1, 1);
  const Index autograd = trace_.threadIndex(1, 2);
  addRange("ProfilerStep#3", 0, 10000, main, trace::RangeKind::kAnnotation);
  addRange("nn.Module: Linear_0", 100, 500, main, trace::RangeKind::kPython);
  const Index forward = addRange("aten::linear", 110, 490, main);
  trace_.ranges[static_cast<std::size_t>(forward)].sequence_number = 42;
  const Index backward = addRange("autograd::engine::evaluate_function: AddmmBackward0", 2000, 2500, autograd);
  trace_.ranges[static_cast<std::size_t>(backward)].sequence_number = 42;
  trace_.ranges[static_cast<std::size_t>(backward)].fwd_thread_tid = 1;
  addRange("aten::mm", 2100, 2200, autograd);
  addLaunch(1, 2150, autograd);
  addKernel(1, 2160);
  trace_.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace_);
  EXPECT_EQ(counts.backward_ranges_linked_to_forward, 1u);
  const trace::Range& mm = opOfKernel(0);
  EXPECT_EQ(trace_.str(mm.name), "aten::mm");
  EXPECT_EQ(mm.phase, Phase::kBackward);
  EXPECT_EQ(trace_.str(mm.layer), "Linear_0");
}

// PyTorch 1.8 stamps the counter's current value on ops that create no autograd node: a data
// loader's view before a convolution carries the number of the convolution's node. The backward op
// belongs to the last outermost forward op with its number, not the first.
TEST_F(CorrelatorTest, BackwardOpLinksToTheLastOutermostForwardOpWithItsNumber) {
  const Index main = trace_.threadIndex(1, 1);
  const Index autograd = trace_.threadIndex(1, 2);
  const Index view = addRange("aten::view", 10, 20, main);
  const Index conv = addRange("aten::conv2d", 100, 500, main);
  const Index inner = addRange("aten::convolution", 110, 490, main);
  for (Index r : {view, conv, inner}) trace_.ranges[static_cast<std::size_t>(r)].sequence_number = 890;
  const Index backward = addRange("CudnnConvolutionBackward", 2000, 2500, autograd);
  trace_.ranges[static_cast<std::size_t>(backward)].sequence_number = 890;
  trace_.ranges[static_cast<std::size_t>(backward)].fwd_thread_tid = 1;
  trace_.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace_);
  EXPECT_EQ(counts.backward_ranges_linked_to_forward, 1u);
  for (const trace::Range& r : trace_.ranges) {
    if (trace_.str(r.name) != "CudnnConvolutionBackward") continue;
    ASSERT_NE(r.forward_range, trace::kNone);
    EXPECT_EQ(trace_.str(trace_.ranges[static_cast<std::size_t>(r.forward_range)].name), "aten::conv2d");
  }
}

TEST_F(CorrelatorTest, PhasesComeFromNamesAndAreInherited) {
  const Index main = trace_.threadIndex(1, 1);
  addRange("ProfilerStep#1", 0, 1000, main, trace::RangeKind::kAnnotation);
  addRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 100, main);
  addRange("aten::to", 20, 30, main);
  addRange("aten::conv2d", 200, 300, main);
  addRange("Optimizer.step#SGD.step", 700, 900, main);
  addRange("aten::add_", 710, 720, main);
  trace_.sortByTime();
  test::correlateAsImported(trace_);
  EXPECT_EQ(trace_.ranges[0].phase, Phase::kStep);
  EXPECT_EQ(trace_.ranges[1].phase, Phase::kData);
  EXPECT_EQ(trace_.ranges[2].phase, Phase::kData);
  EXPECT_EQ(trace_.ranges[3].phase, Phase::kForward);
  EXPECT_EQ(trace_.ranges[4].phase, Phase::kOptimizer);
  EXPECT_EQ(trace_.ranges[5].phase, Phase::kOptimizer);
}

// Above some 32,000 GPU records, the kernels are tied to their launches, and the launches to their
// ops, each beside other work: every derived field and count must be what one thread gives.
TEST(CorrelatorThreadsTest, OneThreadAndTwoGiveTheSameLinksAndCounts) {
  const std::vector<test::SyntheticOp> ops = {
      {"aten::linear", "[[256,1024],[4096,1024],[4096]]", "", "sgemm_128x64_nn", 40'000},
      {"aten::relu", "[[256,4096]]", "", "vectorized_elementwise_kernel", 5'000},
  };
  trace::Trace one = test::syntheticRun(ops, 17'000);
  // GPU records no launch in the trace explains, and a memory op that one does.
  for (std::uint64_t i = 0; i < 50; ++i) {
    trace::Kernel orphan = one.kernels[i];
    orphan.correlation_id = 1'000'000'000 + i;
    one.kernels.push_back(orphan);
  }
  trace::MemoryOp copy;
  copy.correlation_id = one.kernels[3].correlation_id;
  copy.start_ns = one.kernels[3].start_ns;
  copy.end_ns = copy.start_ns + 100;
  one.memory_ops.push_back(copy);
  one.sortByTime();
  ASSERT_GE(one.kernels.size(), 1u << 15);
  // Each step's relu as the backward op of its linear (a sequence number each), and the linear
  // in a layer: the backward links and layers run beside the launches' ops on two threads.
  const trace::StringId linear = one.strings.intern("aten::linear");
  const trace::StringId relu = one.strings.intern("aten::relu");
  const trace::StringId layer = one.strings.intern("fc1");
  std::int64_t sequence = 0;
  for (trace::Range& range : one.ranges) {
    if (range.name == linear) {
      range.sequence_number = ++sequence;
      range.layer = layer;
    } else if (range.name == relu) {
      range.sequence_number = sequence;
      range.fwd_thread_tid = 1;
    }
  }
  trace::Trace two = one;
  import::normaliseRanges(one);
  import::normaliseRanges(two);
  const CorrelationCounts counts_one = correlate(one, 1);
  const CorrelationCounts counts_two = correlate(two, 2);

  EXPECT_EQ(counts_one.kernels_linked_to_launch, one.kernels.size() - 50);
  EXPECT_EQ(counts_one.kernels_attributed_to_op, one.kernels.size() - 50);
  EXPECT_EQ(counts_one.memory_ops_linked_to_launch, 1u);
  EXPECT_EQ(one.import_stats.gpu_records_without_launch, 50u);
  EXPECT_EQ(counts_one.backward_ranges_linked_to_forward, 17'000u);
  EXPECT_EQ(counts_two.kernels, counts_one.kernels);
  EXPECT_EQ(counts_two.kernels_linked_to_launch, counts_one.kernels_linked_to_launch);
  EXPECT_EQ(counts_two.kernels_attributed_to_op, counts_one.kernels_attributed_to_op);
  EXPECT_EQ(counts_two.memory_ops, counts_one.memory_ops);
  EXPECT_EQ(counts_two.memory_ops_linked_to_launch, counts_one.memory_ops_linked_to_launch);
  EXPECT_EQ(counts_two.launches, counts_one.launches);
  EXPECT_EQ(counts_two.launches_in_op, counts_one.launches_in_op);
  EXPECT_EQ(counts_two.backward_ranges_linked_to_forward, counts_one.backward_ranges_linked_to_forward);
  EXPECT_EQ(two.import_stats.gpu_records_without_launch, one.import_stats.gpu_records_without_launch);
  for (std::size_t i = 0; i < one.kernels.size(); ++i) {
    ASSERT_EQ(two.kernels[i].launch, one.kernels[i].launch) << "kernel " << i;
    ASSERT_EQ(two.kernels[i].op_range, one.kernels[i].op_range) << "kernel " << i;
  }
  EXPECT_EQ(two.memory_ops[0].launch, one.memory_ops[0].launch);
  EXPECT_EQ(two.memory_ops[0].op_range, one.memory_ops[0].op_range);
  EXPECT_NE(two.memory_ops[0].op_range, trace::kNone);
  for (std::size_t i = 0; i < one.launches.size(); ++i) {
    ASSERT_EQ(two.launches[i].op_range, one.launches[i].op_range) << "launch " << i;
  }
  for (std::size_t i = 0; i < one.ranges.size(); ++i) {
    ASSERT_EQ(two.ranges[i].parent, one.ranges[i].parent) << "range " << i;
    ASSERT_EQ(two.ranges[i].phase, one.ranges[i].phase) << "range " << i;
    ASSERT_EQ(two.ranges[i].forward_range, one.ranges[i].forward_range) << "range " << i;
    ASSERT_EQ(two.ranges[i].layer, one.ranges[i].layer) << "range " << i;
    if (one.ranges[i].name == relu) {
      ASSERT_EQ(one.ranges[i].layer, layer) << "range " << i;
    }
  }
}

}  // namespace
}  // namespace ampscope::analyzer
