#include "gui/timeline/timeline_index.h"

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "gui/timeline/timeline_painter.h"
#include "tests/gui/timeline/timeline_test_trace.h"

namespace ampscope::gui {
namespace {

using testing::kAllReduce;
using testing::kElementwise;
using testing::kSimtGemm;
using testing::kTensorCoreGemm;
using testing::makeSmallTrace;

std::string nameOf(const TimelineIndex& index, const TimelineEvent& event) {
  return std::string(index.trace().str(index.nameOf(event)));
}

std::vector<std::string> rowNames(const TimelineIndex& index, std::int32_t row) {
  std::vector<std::string> names;
  for (const auto& e : index.rows()[static_cast<std::size_t>(row)].events()) names.push_back(nameOf(index, e));
  return names;
}

TEST(TimelineIndexTest, MakesOneLanePerStreamThenOnePerThreadWithRanges) {
  const TimelineIndex index(makeSmallTrace());
  ASSERT_EQ(index.lanes().size(), 5U);
  EXPECT_EQ(index.lanes()[0].label, "GPU 0 · stream 7");
  EXPECT_EQ(index.lanes()[1].label, "GPU 0 · stream 13 · comm");  // it runs the all-reduce
  EXPECT_EQ(index.lanes()[2].label, "GPU 0 · stream 14");
  EXPECT_EQ(index.lanes()[3].label, "thread 100 (main)");
  EXPECT_EQ(index.lanes()[4].label, "thread 101 (autograd)");
  EXPECT_EQ(index.lanes()[0].kind, TimelineLaneKind::kStream);
  EXPECT_EQ(index.lanes()[3].kind, TimelineLaneKind::kThread);
  EXPECT_EQ(index.eventCount(), 11U);
  EXPECT_EQ(index.startNs(), 1'000'000);
  EXPECT_EQ(index.endNs(), 2'000'000);
  EXPECT_EQ(rowNames(index, index.lanes()[0].first_row),
            (std::vector<std::string>{"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn",
                                      "vectorized_elementwise_kernel", "sgemm_128x64_nn"}));
  EXPECT_EQ(index.rows()[static_cast<std::size_t>(index.lanes()[2].first_row)][0].kind,
            TimelineEventKind::kMemoryOp);
}

TEST(TimelineIndexTest, KeepsAThreadNameThatAlreadyCarriesItsId) {
  auto trace = makeSmallTrace();
  trace->threads[0].name = trace->strings.intern("thread 100 (python)");  // as Kineto names them
  trace->threads[1].name = trace::StringTable::kEmpty;
  const TimelineIndex index(trace);
  EXPECT_EQ(index.lanes()[3].label, "thread 100 (python)");
  EXPECT_EQ(index.lanes()[4].label, "thread 101");
}

TEST(TimelineIndexTest, NestsAThreadsRangesIntoOneRowPerDepth) {
  const TimelineIndex index(makeSmallTrace());
  const TimelineLane& main = index.lanes()[3];
  ASSERT_EQ(main.row_count, 3);
  EXPECT_EQ(rowNames(index, main.first_row), (std::vector<std::string>{"ProfilerStep#1"}));
  EXPECT_EQ(rowNames(index, main.first_row + 1), (std::vector<std::string>{"fc1", "fc2"}));
  EXPECT_EQ(rowNames(index, main.first_row + 2), (std::vector<std::string>{"aten::linear", "aten::addmm"}));
  for (std::int32_t r = main.first_row; r < main.first_row + main.row_count; ++r) {
    EXPECT_EQ(index.laneOfRow(r), 3);
  }
  EXPECT_EQ(index.lanes()[4].row_count, 1);
}

TEST(TimelineIndexTest, GivesOverlappingKernelsOfOneStreamARowOfTheirOwn) {
  auto trace = makeSmallTrace();
  trace::Kernel late = trace->kernels[kElementwise];
  late.start_ns = 1'310'000;  // starts before the elementwise kernel ends
  late.end_ns = 1'400'000;
  late.name = trace->strings.intern("overlapping_kernel");
  trace->kernels.push_back(late);
  const TimelineIndex index(trace);
  const TimelineLane& stream7 = index.lanes()[0];
  ASSERT_EQ(stream7.row_count, 2);
  EXPECT_EQ(rowNames(index, stream7.first_row + 1), (std::vector<std::string>{"overlapping_kernel"}));
  for (std::int32_t r = 0; r < static_cast<std::int32_t>(index.rows().size()); ++r) {
    const auto& events = index.rows()[static_cast<std::size_t>(r)].events();
    for (std::size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].end_ns, events[i].start_ns);
  }
}

TEST(TimelineIndexTest, ColoursKernelsByTheirTensorCoreVerdictAndRangesByPhase) {
  const TimelineIndex index(makeSmallTrace());
  const TimelineRow& stream7 = index.rows()[static_cast<std::size_t>(index.lanes()[0].first_row)];
  EXPECT_EQ(stream7[0].style, TimelineStyle::kTensorCoreKernel);
  EXPECT_EQ(stream7[1].style, TimelineStyle::kKernel);
  EXPECT_EQ(stream7[2].style, TimelineStyle::kKernel);
  const TimelineLane& main = index.lanes()[3];
  EXPECT_EQ(index.rows()[static_cast<std::size_t>(main.first_row)][0].style, TimelineStyle::kRangeStep);
  EXPECT_EQ(index.rows()[static_cast<std::size_t>(main.first_row + 1)][0].style, TimelineStyle::kRangeForward);
  EXPECT_EQ(index.rows()[static_cast<std::size_t>(index.lanes()[4].first_row)][0].style,
            TimelineStyle::kRangeBackward);
}

TEST(TimelineIndexTest, MarksAStreamOfCollectivesAsCommunicationAndDrawsThemApart) {
  const TimelineIndex index(makeSmallTrace());
  const TimelineLane& stream13 = index.lanes()[1];
  ASSERT_EQ(stream13.stream, 13U);
  EXPECT_TRUE(stream13.communication);
  const TimelineEvent& all_reduce = index.rows()[static_cast<std::size_t>(stream13.first_row)][0];
  ASSERT_EQ(all_reduce.source, kAllReduce);
  EXPECT_EQ(all_reduce.style, TimelineStyle::kCommunicationKernel);
  const std::string text = index.describe(all_reduce);
  EXPECT_NE(text.find("communication: all_reduce"), std::string::npos) << text;
  // The compute stream and the copy stream are not communication.
  EXPECT_FALSE(index.lanes()[0].communication);
  EXPECT_EQ(index.lanes()[0].label, "GPU 0 · stream 7");
  EXPECT_FALSE(index.lanes()[2].communication);
  EXPECT_NE(TimelinePainter::colorOf(TimelineStyle::kCommunicationKernel, 0),
            TimelinePainter::colorOf(TimelineStyle::kKernel, 0));
}

TEST(TimelineIndexTest, AStreamIsCommunicationOnlyWhereCollectivesTakeMostOfItsKernelTime) {
  // The all-reduce on stream 13 runs 650 us; compute beside it on that stream, shorter or longer.
  for (const auto& [compute_us, communication] : {std::pair{240, true}, std::pair{700, false}}) {
    auto trace = makeSmallTrace();
    trace::Kernel compute = trace->kernels[kSimtGemm];
    compute.stream = 13;
    compute.start_ns = 1'000'000;
    compute.end_ns = compute.start_ns + compute_us * 1'000;
    trace->kernels.push_back(compute);
    // A short collective on the compute stream (NCCL on the default stream) leaves it compute.
    trace::Kernel broadcast = trace->kernels[kAllReduce];
    broadcast.stream = 7;
    broadcast.start_ns = 1'800'000;
    broadcast.end_ns = 1'810'000;
    broadcast.name = trace->strings.intern("ncclDevKernel_Broadcast_RING_LL");
    trace->kernels.push_back(broadcast);
    const TimelineIndex index(trace);
    EXPECT_EQ(index.lanes()[1].communication, communication) << compute_us << " us of compute";
    const TimelineLane& stream7 = index.lanes()[0];
    EXPECT_FALSE(stream7.communication);
    const TimelineRow& row = index.rows()[static_cast<std::size_t>(stream7.first_row)];
    ASSERT_EQ(row.size(), 4U);
    EXPECT_EQ(nameOf(index, row[3]), "ncclDevKernel_Broadcast_RING_LL");
    EXPECT_EQ(row[3].style, TimelineStyle::kCommunicationKernel);  // drawn as what it is all the same
  }
}

TEST(TimelineIndexTest, KernelsTakeTheLayerOfTheirOperatorOrItsEnclosingRanges) {
  const TimelineIndex index(makeSmallTrace());
  const TimelineRow& stream7 = index.rows()[static_cast<std::size_t>(index.lanes()[0].first_row)];
  EXPECT_EQ(stream7[0].source, kTensorCoreGemm);
  EXPECT_EQ(index.layerOf(stream7[0]), "encoder.fc1");  // aten::linear names none; fc1 does
  EXPECT_EQ(index.layerOf(stream7[2]), "encoder.fc2");
  EXPECT_EQ(stream7[2].source, kSimtGemm);
  const TimelineRow& stream13 = index.rows()[static_cast<std::size_t>(index.lanes()[1].first_row)];
  EXPECT_EQ(stream13[0].source, kAllReduce);
  EXPECT_EQ(index.layerOf(stream13[0]), "");  // launched outside any operator
  const TimelineLane& main = index.lanes()[3];
  EXPECT_EQ(index.layerOf(index.rows()[static_cast<std::size_t>(main.first_row + 2)][1]), "encoder.fc2");
  EXPECT_EQ(index.layerOf(index.rows()[static_cast<std::size_t>(main.first_row)][0]), "");
}

TEST(TimelineIndexTest, HitTestMapsATimeInAStreamRowToTheKernelAndItsLayer) {
  const TimelineIndex index(makeSmallTrace());
  const std::int32_t row = index.lanes()[0].first_row;
  const TimelineHit hit = index.hitTest(row, 1'250'000, 0);
  ASSERT_TRUE(hit.valid());
  EXPECT_EQ(index.event(hit).source, kTensorCoreGemm);
  EXPECT_EQ(index.layerOf(index.event(hit)), "encoder.fc1");
  const TimelineHit near = index.hitTest(row, 1'325'000, 10'000);  // 5 µs after the elementwise kernel
  ASSERT_TRUE(near.valid());
  EXPECT_EQ(index.event(near).source, kElementwise);
  EXPECT_FALSE(index.hitTest(row, 1'450'000, 10'000).valid());
  EXPECT_FALSE(index.hitTest(-1, 1'250'000, 0).valid());
  EXPECT_FALSE(index.hitTest(99, 1'250'000, 0).valid());
}

TEST(TimelineIndexTest, DescribesAnEventWithItsDurationAndLayer) {
  const TimelineIndex index(makeSmallTrace());
  const TimelineEvent& gemm = index.rows()[static_cast<std::size_t>(index.lanes()[0].first_row)][0];
  const std::string text = index.describe(gemm);
  EXPECT_NE(text.find("ampere_fp16_s16816gemm"), std::string::npos) << text;
  EXPECT_NE(text.find("100 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("layer: encoder.fc1"), std::string::npos) << text;
  EXPECT_NE(text.find("operator: aten::linear"), std::string::npos) << text;
  const TimelineEvent& copy = index.rows()[static_cast<std::size_t>(index.lanes()[2].first_row)][0];
  EXPECT_NE(index.describe(copy).find("4.000 MB"), std::string::npos) << index.describe(copy);
}

TEST(TimelineIndexTest, AnEmptyTraceHasNoLanes) {
  const TimelineIndex index(std::make_shared<trace::Trace>());
  EXPECT_TRUE(index.lanes().empty());
  EXPECT_TRUE(index.rows().empty());
  EXPECT_EQ(index.eventCount(), 0U);
  const TimelineIndex none(nullptr);
  EXPECT_TRUE(none.rows().empty());
}

TEST(TimelineIndexTest, FormatsDurationsWithThreeSignificantDigits) {
  EXPECT_EQ(formatDurationNs(830), "830 ns");
  EXPECT_EQ(formatDurationNs(1'250'000), "1.25 ms");
  EXPECT_EQ(formatDurationNs(999'700), "1.00 ms");
  EXPECT_EQ(formatDurationNs(12e9), "12.0 s");
  EXPECT_EQ(formatDurationNs(100'000), "100 µs");
}

}  // namespace
}  // namespace ampscope::gui
