// The launch queue's counter lanes: the analyzer's depth step function placed above its stream,
// the per-pixel-column maximum that keeps drawing O(pixels), and what the widget draws and says
// when hovered.

#include "gui/timeline/timeline_counter.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <QImage>

#include <gtest/gtest.h>

#include "analyzer/run_analysis.h"
#include "gui/timeline/timeline_index.h"
#include "gui/timeline/timeline_view.h"
#include "tests/gui/timeline/timeline_test_trace.h"

namespace ampscope::gui {
namespace {

using analyzer::QueuePoint;
using testing::kTraceStartNs;

std::shared_ptr<const analyzer::RunAnalysis> queueRun() {
  return std::make_shared<const analyzer::RunAnalysis>(
      analyzer::analyzeTrace(testing::makeQueueTrace(), "(built in the test)"));
}

std::shared_ptr<const TimelineIndex> queueIndex(const std::shared_ptr<const analyzer::RunAnalysis>& run) {
  return std::make_shared<const TimelineIndex>(
      std::shared_ptr<const trace::Trace>(run, &run->trace),
      std::shared_ptr<const analyzer::LaunchQueue>(run, &run->summary.launch_queue));
}

std::vector<std::int32_t> columns(const TimelineCounter& counter, std::int64_t start_ns, double ns_per_px,
                                  int count) {
  std::vector<std::int32_t> out;
  counter.query(start_ns, ns_per_px, count, out);
  return out;
}

TEST(TimelineCounterTest, TheAnalyzersQueueBecomesACounterLaneAboveItsStream) {
  const auto run = queueRun();
  ASSERT_TRUE(run->summary.launch_queue.measured) << run->summary.launch_queue.note;
  const TimelineIndex index = *queueIndex(run);

  ASSERT_EQ(index.lanes().size(), 3U);  // the queue of stream 7, stream 7, the thread of the step
  EXPECT_EQ(index.lanes()[0].kind, TimelineLaneKind::kQueue);
  EXPECT_EQ(index.lanes()[0].label, "queue depth · GPU 0 · stream 7");
  EXPECT_EQ(index.lanes()[0].row_count, 0);
  EXPECT_EQ(index.lanes()[1].kind, TimelineLaneKind::kStream);
  EXPECT_EQ(index.lanes()[1].label, "GPU 0 · stream 7");
  EXPECT_EQ(index.lanes()[0].first_row, index.lanes()[1].first_row);

  const TimelineCounter& counter = index.counterOf(index.lanes()[0]);
  // The points are the analysis's own, not a copy recounted here.
  EXPECT_EQ(counter.points().data(), run->summary.launch_queue.streams[0].points.data());
  const std::int64_t t0 = kTraceStartNs;
  std::vector<std::pair<std::int64_t, std::int32_t>> steps;
  for (const QueuePoint& p : counter.points()) steps.emplace_back(p.time_ns - t0, p.depth);
  EXPECT_EQ(steps, (std::vector<std::pair<std::int64_t, std::int32_t>>{
                       {0, 1}, {1'000, 2}, {2'000, 3}, {10'000, 2}, {20'000, 1}, {30'000, 0}}));
  EXPECT_EQ(counter.maxValue(), 3);
  EXPECT_EQ(counter.valueAt(t0 - 1), 0);
  EXPECT_EQ(counter.valueAt(t0), 1);
  EXPECT_EQ(counter.valueAt(t0 + 1'500), 2);
  EXPECT_EQ(counter.valueAt(t0 + 9'999), 3);
  EXPECT_EQ(counter.valueAt(t0 + 15'000), 2);
  EXPECT_EQ(counter.valueAt(t0 + 25'000), 1);
  EXPECT_EQ(counter.valueAt(t0 + 40'000), 0);
  EXPECT_EQ(counter.maxIn(t0 + 15'000, t0 + 35'000), 2);
  EXPECT_EQ(counter.maxIn(t0 + 20'000, t0 + 20'000), 1);  // empty: the value at its start
  EXPECT_EQ(index.startNs(), t0);
  EXPECT_EQ(index.endNs(), t0 + 40'000);
}

TEST(TimelineCounterTest, EachPixelColumnShowsTheDeepestQueueInIt) {
  const auto run = queueRun();
  const TimelineIndex index = *queueIndex(run);
  ASSERT_EQ(index.counters().size(), 1U);
  const TimelineCounter& counter = index.counterOf(index.lanes()[0]);
  const std::int64_t t0 = kTraceStartNs;
  // A microsecond per pixel: every step in its own column.
  EXPECT_EQ(columns(counter, t0 - 2'000, 1'000.0, 6), (std::vector<std::int32_t>{0, 0, 1, 2, 3, 3}));
  // 5 µs per pixel: the queue's 3 fills the first column though it lasts 8 of its µs; a point
  // exactly at a column's end counts in the next column only.
  EXPECT_EQ(columns(counter, t0, 5'000.0, 8), (std::vector<std::int32_t>{3, 3, 2, 2, 1, 1, 0, 0}));
  EXPECT_EQ(columns(counter, t0 - 5'000, 5'000.0, 2), (std::vector<std::int32_t>{0, 3}));
  // The whole trace in one pixel keeps the peak; a fraction of a ns per pixel repeats the value.
  EXPECT_EQ(columns(counter, t0, 40'000.0, 1), (std::vector<std::int32_t>{3}));
  EXPECT_EQ(columns(counter, t0 + 9'999, 0.5, 4), (std::vector<std::int32_t>{3, 3, 2, 2}));
  EXPECT_TRUE(columns(counter, t0, 0.0, 3) == (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_TRUE(columns(counter, t0, 1'000.0, 0).empty());
}

TEST(TimelineCounterTest, AMillionPointsGiveTheSameColumnsAsAScan) {
  std::mt19937 random(7);
  std::vector<QueuePoint> points;
  points.reserve(1'000'000);
  std::int64_t t = 0;
  std::int32_t depth = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    t += 1 + static_cast<std::int64_t>(random() % 400);
    depth = std::max(0, depth + static_cast<std::int32_t>(random() % 3) - 1);
    if (random() % 100'000 == 0) depth = 900;  // rare spikes a column must not lose
    points.push_back({t, depth});
  }
  const TimelineCounter counter(points);
  std::int32_t deepest = 0;
  for (const QueuePoint& p : points) deepest = std::max(deepest, p.depth);
  EXPECT_EQ(counter.maxValue(), deepest);

  for (const int width : {1920, 333, 7}) {
    const double ns_per_px = static_cast<double>(t) / width;
    std::vector<std::int32_t> got;
    counter.query(0, ns_per_px, width, got);
    // The reference: one sweep over every point.
    std::vector<std::int32_t> want(static_cast<std::size_t>(width), 0);
    std::int32_t value = 0;
    std::size_t next = 0;
    for (int c = 0; c < width; ++c) {
      const auto end = static_cast<std::int64_t>(std::floor((c + 1) * ns_per_px));
      std::int32_t most = value;
      while (next < points.size() && points[next].time_ns < end) most = std::max(most, value = points[next++].depth);
      if (next < points.size() && points[next].time_ns == end) value = points[next++].depth;
      want[static_cast<std::size_t>(c)] = most;
    }
    EXPECT_EQ(got, want) << width << " columns";
  }
  // A window inside the points, narrower than a point's span per pixel.
  for (const std::int64_t from : {std::int64_t{123'457}, t / 2, t - 1'000}) {
    std::vector<std::int32_t> got;
    counter.query(from, 3.0, 100, got);
    for (int c = 0; c < 100; ++c) {
      const auto a = from + static_cast<std::int64_t>(std::floor(c * 3.0));
      const auto b = from + static_cast<std::int64_t>(std::floor((c + 1) * 3.0));
      ASSERT_EQ(got[static_cast<std::size_t>(c)], counter.maxIn(a, b)) << from << " column " << c;
    }
  }
}

TEST(TimelineCounterTest, TheLaneIsDrawnToScaleAndHoveringSaysTheDepth) {
  testing::ensureApplication();
  const auto run = queueRun();
  TimelineView view;
  view.resize(TimelinePainter::kLabelWidth + 400, 300);
  view.setIndex(queueIndex(run));
  view.setWindow(0.0, 40'000.0);  // the whole step, 100 ns per pixel
  const int lane_top = TimelinePainter::kAxisHeight;  // the queue lane is the first
  const int middle_y = lane_top + TimelinePainter::kCounterHeight / 2;
  const int bottom_y = lane_top + TimelinePainter::kCounterHeight - 2;
  EXPECT_EQ(view.rowAtY(middle_y), -1);  // no event row there
  EXPECT_EQ(view.rowAtY(lane_top + TimelinePainter::kCounterHeight + TimelinePainter::kLaneGap + 2), 0);

  const auto x = [&](double ns) { return static_cast<int>(std::lround(view.xAtTime(ns))); };
  const QString deep = view.toolTipAt(QPoint(x(5'000.0), middle_y));
  EXPECT_TRUE(deep.startsWith(QStringLiteral("queue depth · GPU 0 · stream 7\n3 queued and not started at 5.00 µs")))
      << deep.toStdString();
  EXPECT_TRUE(deep.contains(QStringLiteral("scale: 0 – 3"))) << deep.toStdString();
  EXPECT_TRUE(view.toolTipAt(QPoint(x(25'000.0), middle_y)).contains(QStringLiteral("\n1 queued")));
  EXPECT_TRUE(view.toolTipAt(QPoint(x(35'000.0), middle_y)).contains(QStringLiteral("\n0 queued")));
  EXPECT_TRUE(view.toolTipAt(QPoint(TimelinePainter::kLabelWidth - 5, middle_y)).isEmpty());
  // 50 ns per pixel, columns offset by 25 ns from the steps: the pixel holding the 1 → 2 step at
  // 1 µs starts at 975 ns, and its tooltip says what the column drew, not only the value at its start.
  view.setWindow(75.0, 20'075.0);
  const QString straddling = view.toolTipAt(QPoint(static_cast<int>(std::floor(view.xAtTime(1'000.0))), middle_y));
  EXPECT_TRUE(straddling.contains(QStringLiteral("\n1 queued and not started at 975 ns\nup to 2 within this pixel (50 ns)")))
      << straddling.toStdString();

  view.setWindow(0.0, 40'000.0);
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  view.renderFrame(image);
  const QRgb background = image.pixel(x(37'000.0), lane_top + 3);  // the queue is empty from 30 µs
  // Depth 3 (the maximum) fills the lane to its top; depth 1 a third of it; depth 0 nothing.
  EXPECT_NE(image.pixel(x(5'000.0), lane_top + 3), background);
  EXPECT_NE(image.pixel(x(25'000.0), bottom_y - 2), background);
  EXPECT_EQ(image.pixel(x(25'000.0), middle_y - 4), background);
  EXPECT_EQ(image.pixel(x(37'000.0), bottom_y - 2), background);
}

TEST(TimelineCounterTest, QueuesOfSeveralProcessesNameTheirProcess) {
  trace::Trace t = testing::makeQueueTrace();
  auto run = std::make_shared<analyzer::RunAnalysis>(analyzer::analyzeTrace(std::move(t), "(built in the test)"));
  ASSERT_EQ(run->summary.launch_queue.streams.size(), 1U);
  analyzer::StreamQueue other = run->summary.launch_queue.streams[0];
  other.pid = 2;
  run->summary.launch_queue.streams.push_back(other);
  other.stream = 9;  // a stream with no events in the trace: after the stream lanes
  run->summary.launch_queue.streams.push_back(other);
  const TimelineIndex index = *queueIndex(run);
  std::vector<std::string> labels;
  labels.reserve(index.lanes().size());
  for (const TimelineLane& lane : index.lanes()) labels.push_back(lane.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"queue depth · pid 1 · GPU 0 · stream 7",
                                              "queue depth · pid 2 · GPU 0 · stream 7", "GPU 0 · stream 7",
                                              "queue depth · pid 2 · GPU 0 · stream 9", "thread 100 (main)"}));
  EXPECT_EQ(index.counters().size(), 3U);
}

}  // namespace
}  // namespace ampscope::gui
