// The timeline over real traces from other tools (../shared/traces; skipped when absent): every
// event gets exactly one place, rows never overlap, a fitted frame holds every event in
// O(pixels) items, Tensor Core kernels are told apart where the trace has them, and each stream
// whose launch queue the analyzer measured has its counter lane above it; a rank's NCCL stream is
// marked as communication.

#include <memory>
#include <string>
#include <vector>

#include <QImage>

#include <gtest/gtest.h>

#include "analyzer/run_analysis.h"
#include "gui/timeline/timeline_index.h"
#include "gui/timeline/timeline_view.h"
#include "tests/gui/timeline/timeline_test_trace.h"
#include "tests/test_support.h"

namespace ampscope::gui {
namespace {

struct RealTrace {
  const char* name;
  const char* path;
  bool has_tensor_core_kernels;  // as ../shared/traces/SOURCES.md describes the run
};

class TimelineRealTraceTest : public ::testing::TestWithParam<RealTrace> {};

TEST_P(TimelineRealTraceTest, PlacesEveryEventOnceInRowsThatNeverOverlap) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, GetParam().path);
  auto analyzed = analyzer::analyzeFile(path);
  ASSERT_TRUE(analyzed.ok()) << analyzed.error().message;
  const auto run = std::make_shared<const analyzer::RunAnalysis>(std::move(analyzed).value());
  const trace::Trace& t = run->trace;
  const TimelineIndex index(std::shared_ptr<const trace::Trace>(run, &run->trace));

  EXPECT_EQ(index.eventCount(), t.kernels.size() + t.memory_ops.size() + t.ranges.size());
  std::size_t kernels = 0;
  std::size_t tensor_core = 0;
  std::size_t placed = 0;
  for (std::size_t r = 0; r < index.rows().size(); ++r) {
    const auto& events = index.rows()[r].events();
    placed += events.size();
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (i > 0) {
        ASSERT_LE(events[i - 1].end_ns, events[i].start_ns) << "row " << r << " event " << i;
      }
      kernels += events[i].kind == TimelineEventKind::kKernel ? 1 : 0;
      tensor_core += events[i].style == TimelineStyle::kTensorCoreKernel ? 1 : 0;
    }
  }
  EXPECT_EQ(placed, index.eventCount());
  EXPECT_EQ(kernels, t.kernels.size());
  // The colours agree with the analyzer's Tensor Core account of the same run.
  EXPECT_EQ(tensor_core > 0, GetParam().has_tensor_core_kernels) << tensor_core << " Tensor Core kernels";
  EXPECT_EQ(tensor_core > 0, run->summary.tensor_cores.time_ns > 0);

  // Fitted into 1,720 pixels, each row covers all its events with at most two items per pixel.
  constexpr double kPixels = 1720.0;
  const double ns_per_px = static_cast<double>(index.endNs() - index.startNs()) / kPixels;
  for (const TimelineRow& row : index.rows()) {
    std::vector<TimelineItem> items;
    row.query(index.startNs(), index.endNs() + 1, ns_per_px, items);
    std::size_t covered = 0;
    for (const auto& item : items) covered += static_cast<std::size_t>(item.count);
    EXPECT_EQ(covered, row.size());
    EXPECT_LE(static_cast<double>(items.size()), 2.0 * kPixels + 4.0);
  }

  // The analysis's launch queue: a counter lane per measured stream, right above that stream.
  const auto queued = std::make_shared<const TimelineIndex>(
      std::shared_ptr<const trace::Trace>(run, &run->trace),
      std::shared_ptr<const analyzer::LaunchQueue>(run, &run->summary.launch_queue));
  std::size_t queue_lanes = 0;
  for (std::size_t i = 0; i < queued->lanes().size(); ++i) {
    const TimelineLane& lane = queued->lanes()[i];
    if (lane.kind != TimelineLaneKind::kQueue) continue;
    ++queue_lanes;
    std::size_t below = i + 1;
    while (below < queued->lanes().size() && queued->lanes()[below].kind == TimelineLaneKind::kQueue) ++below;
    ASSERT_LT(below, queued->lanes().size());
    EXPECT_EQ(queued->lanes()[below].kind, TimelineLaneKind::kStream) << lane.label;
    EXPECT_EQ(queued->lanes()[below].stream, lane.stream) << lane.label;
    EXPECT_EQ(queued->counterOf(lane).maxValue() > 0, !queued->counterOf(lane).points().empty()) << lane.label;
  }
  EXPECT_EQ(queue_lanes, run->summary.launch_queue.streams.size());
  EXPECT_EQ(queued->eventCount(), index.eventCount());

  testing::ensureApplication();
  TimelineView view;
  view.resize(1920, 1080);
  view.setIndex(queued);
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  EXPECT_GT(view.renderFrame(image).items, 0U);
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, TimelineRealTraceTest,
    ::testing::Values(
        RealTrace{"KinetoH100TimesformerBf16",
                  "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz", true},
        RealTrace{"KinetoA100DlrmTf32", "kineto-a100-dlrm-tf32/control.json.gz", true},
        RealTrace{"KinetoV100Resnet50Fp32", "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz", false},
        RealTrace{"NvprofV100TransformerLmFp32", "nvprof-v100-transformer-lm/net.sql", false}),
    [](const ::testing::TestParamInfo<RealTrace>& param_info) { return std::string(param_info.param.name); });

// One rank of the DLRM job: NCCL runs its 5 send/recv and 3 all-reduce kernels on stream 84 of its
// own (SOURCES.md); that lane alone is communication, and those kernels alone are drawn as such.
TEST(TimelineRealTraceTest, MarksTheNcclStreamOfADistributedRankAsCommunication) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-dlrm-8ranks/worker0_step_12.1694128201545.pt.trace.json");
  auto analyzed = analyzer::analyzeFile(path);
  ASSERT_TRUE(analyzed.ok()) << analyzed.error().message;
  const auto run = std::make_shared<const analyzer::RunAnalysis>(std::move(analyzed).value());
  const TimelineIndex index(std::shared_ptr<const trace::Trace>(run, &run->trace));
  std::vector<std::string> communication_lanes;
  std::size_t collectives = 0;
  for (const TimelineLane& lane : index.lanes()) {
    if (lane.communication) communication_lanes.push_back(lane.label);
    for (std::int32_t r = lane.first_row; r < lane.first_row + lane.row_count; ++r) {
      for (const TimelineEvent& event : index.rows()[static_cast<std::size_t>(r)].events()) {
        if (event.style != TimelineStyle::kCommunicationKernel) continue;
        ++collectives;
        EXPECT_TRUE(lane.communication) << lane.label;
        EXPECT_EQ(index.trace().str(index.nameOf(event)).substr(0, 11), "ncclKernel_");
      }
    }
  }
  EXPECT_EQ(communication_lanes, std::vector<std::string>{"GPU 0 · stream 84 · comm"});
  EXPECT_EQ(collectives, 8U);
}

}  // namespace
}  // namespace ampscope::gui
