// The Memory tab draws the primary device's allocated and reserved bytes over time with the peak
// marked and the steps shaded, lists the peak's breakdown, reads the totals at a clicked moment,
// and says so where the trace has no memory events. The memory analysis is built in the test.

#include <QAreaSeries>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTableWidget>

#include <gtest/gtest.h>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/memory_tab.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using test::app;
using test::child;

constexpr std::int64_t kMiB = 1024 * 1024;
constexpr std::int64_t kStartNs = 5'000'000'000;

// Four events on GPU 0 with recorded totals, the peak of 300 MiB at the third, 2 ms after start.
analyzer::MemoryAnalysis smallMemory() {
  analyzer::DeviceMemory d;
  d.device = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.events = 4;
  d.timeline = {{kStartNs, 100 * kMiB, 128 * kMiB},
                {kStartNs + 1'000'000, 200 * kMiB, 256 * kMiB},
                {kStartNs + 2'000'000, 300 * kMiB, 320 * kMiB},
                {kStartNs + 3'000'000, 150 * kMiB, 320 * kMiB}};
  d.peak_allocated_bytes = 300 * kMiB;
  d.peak_reserved_bytes = 320 * kMiB;
  d.peak_at_ns = kStartNs + 2'000'000;
  d.peak_step = 1;
  d.peak_by_category = {{analyzer::MemoryCategory::kActivations, 200 * kMiB},
                        {analyzer::MemoryCategory::kPersistent, 100 * kMiB},
                        {analyzer::MemoryCategory::kAllocatorSlack, 20 * kMiB}};
  d.peak_by_layer = {{"encoder.layers.0.mlp", trace::Phase::kForward, 150 * kMiB, 3},
                     {"", trace::Phase::kUnknown, 50 * kMiB, 1}};
  // The blocks behind them: the MLP's from 0.5 ms to the end, a head's from 1.2 ms to 2.5 ms.
  d.block_layers = {"encoder.layers.0.mlp", "head"};
  d.blocks = {{kStartNs + 500'000, analyzer::MemoryBlockSpan::kLiveToTheEnd, 150 * kMiB, 0, trace::Phase::kForward,
               analyzer::MemoryCategory::kActivations},
              {kStartNs + 1'200'000, kStartNs + 2'500'000, 40 * kMiB, 1, trace::Phase::kForward,
               analyzer::MemoryCategory::kActivations}};
  analyzer::MemoryAnalysis memory;
  memory.devices = {d};
  memory.primary = 0;
  memory.amp.applies = true;
  memory.amp.measured_peak_allocated_bytes = 300 * kMiB;
  memory.amp.projected_peak_allocated_bytes = 200 * kMiB;
  return memory;
}

RunPtr runWith(analyzer::MemoryAnalysis memory) {
  auto run = std::make_shared<analyzer::RunAnalysis>(*test::trainerRun());
  run->summary.iterations.iterations = {{0, kStartNs, kStartNs + 1'500'000, false, kStartNs, kStartNs + 1'500'000},
                                        {1, kStartNs + 1'500'000, kStartNs + 3'000'000, false, kStartNs + 1'500'000,
                                         kStartNs + 3'000'000}};
  run->summary.memory = std::move(memory);
  return run;
}

template <typename Series>
Series* seriesNamed(const MemoryTab& tab, const char* name) {
  auto* view = child<QChartView>(tab, "memoryChart");
  if (!view) return nullptr;
  for (QAbstractSeries* series : view->chart()->series()) {
    if (series->objectName() == name) return qobject_cast<Series*>(series);
  }
  return nullptr;
}

double highest(const QLineSeries& series) {
  double top = 0.0;
  for (const QPointF& p : series.points()) top = std::max(top, p.y());
  return top;
}

TEST(MemoryTabTest, DrawsAllocatedAndReservedOverTimeWithThePeakMarkedAndTheStepsShaded) {
  app();
  MemoryTab tab;
  tab.showRun(runWith(smallMemory()));
  const auto* allocated = seriesNamed<QLineSeries>(tab, "allocated");
  ASSERT_NE(allocated, nullptr);
  // A step line: each event after the first adds the level held until it, then its own.
  ASSERT_EQ(allocated->count(), 7);
  EXPECT_EQ(allocated->at(0), QPointF(0.0, 100.0));  // MiB, ms since the first event
  EXPECT_EQ(allocated->at(1), QPointF(1.0, 100.0));
  EXPECT_EQ(allocated->at(2), QPointF(1.0, 200.0));
  EXPECT_DOUBLE_EQ(highest(*allocated), 300.0);
  const auto* reserved = seriesNamed<QLineSeries>(tab, "reserved");
  ASSERT_NE(reserved, nullptr);
  EXPECT_DOUBLE_EQ(highest(*reserved), 320.0);
  const auto* peak = seriesNamed<QScatterSeries>(tab, "peak");
  ASSERT_NE(peak, nullptr);
  ASSERT_EQ(peak->count(), 1);
  EXPECT_EQ(peak->at(0), QPointF(2.0, 300.0));
  EXPECT_NE(seriesNamed<QAreaSeries>(tab, "stepShade0"), nullptr);
  EXPECT_NE(seriesNamed<QAreaSeries>(tab, "stepShade1"), nullptr);
  const auto* peak_card = child<QLabel>(tab, "memoryPeakValue");
  ASSERT_NE(peak_card, nullptr);
  EXPECT_EQ(peak_card->text(), "300.0 MiB");
  const auto* reserved_card = child<QLabel>(tab, "memoryReservedValue");
  ASSERT_NE(reserved_card, nullptr);
  EXPECT_EQ(reserved_card->text(), "320.0 MiB");
  const auto* amp_card = child<QLabel>(tab, "memoryAmpValue");
  ASSERT_NE(amp_card, nullptr);
  EXPECT_EQ(amp_card->text(), "200.0 MiB");
}

TEST(MemoryTabTest, ReservedIsUnknownAndNotDrawnWhereTheTraceDoesNotRecordIt) {
  app();
  analyzer::MemoryAnalysis memory = smallMemory();
  memory.devices[0].peak_reserved_bytes = -1;
  for (analyzer::MemorySample& sample : memory.devices[0].timeline) sample.reserved_bytes = -1;
  memory.devices[0].totals = analyzer::MemoryTotals::kReconstructed;
  MemoryTab tab;
  tab.showRun(runWith(memory));
  EXPECT_EQ(seriesNamed<QLineSeries>(tab, "reserved"), nullptr);
  const auto* reserved_card = child<QLabel>(tab, "memoryReservedValue");
  ASSERT_NE(reserved_card, nullptr);
  EXPECT_EQ(reserved_card->text(), "unknown");
  const auto* basis = child<QLabel>(tab, "memoryBasisValue");
  ASSERT_NE(basis, nullptr);
  EXPECT_EQ(basis->text(), "reconstructed");
}

TEST(MemoryTabTest, ListsThePeaksBreakdownByCategoryAndLayer) {
  app();
  MemoryTab tab;
  tab.showRun(runWith(smallMemory()));
  auto* categories = child<QTableWidget>(tab, "memoryCategories");
  auto* layers = child<QTableWidget>(tab, "memoryLayers");
  ASSERT_NE(categories, nullptr);
  ASSERT_NE(layers, nullptr);
  ASSERT_EQ(categories->rowCount(), 3);
  EXPECT_EQ(categories->item(0, 0)->text(), "activations");
  EXPECT_EQ(categories->item(0, 1)->text(), "200.0 MiB");
  EXPECT_EQ(categories->item(0, 2)->text(), "66.7%");
  ASSERT_EQ(layers->rowCount(), 2);
  EXPECT_EQ(layers->item(0, 0)->text(), "encoder.layers.0.mlp");
  EXPECT_EQ(layers->item(0, 1)->text(), "forward");
  EXPECT_EQ(layers->item(1, 0)->text(), "(allocating op unknown)");
}

TEST(MemoryTabTest, AClickedMomentShowsTheTotalsInForceThen) {
  app();
  MemoryTab tab;
  tab.showRun(runWith(smallMemory()));
  tab.showMoment(kStartNs + 1'500'000);  // between the second and third events
  const auto* moment = child<QLabel>(tab, "memoryMoment");
  ASSERT_NE(moment, nullptr);
  EXPECT_TRUE(moment->text().startsWith("At 1.50 ms: 200.0 MiB allocated, 256.0 MiB reserved (66.7% of the peak)"))
      << moment->text().toStdString();
  // The layer table now holds what is live at that moment.
  const auto* layers = child<QTableWidget>(tab, "memoryLayers");
  ASSERT_NE(layers, nullptr);
  ASSERT_EQ(layers->rowCount(), 2);
  EXPECT_EQ(layers->item(0, 0)->text(), "encoder.layers.0.mlp");
  EXPECT_EQ(layers->item(1, 0)->text(), "head");
  EXPECT_EQ(layers->item(1, 2)->text(), "40.0 MiB");
  tab.showMoment(kStartNs + 2'700'000);  // the head's block is gone
  EXPECT_EQ(layers->rowCount(), 1);
  tab.showMoment(kStartNs - 1);
  EXPECT_TRUE(moment->text().contains("before the first memory event")) << moment->text().toStdString();
}

TEST(MemoryTabTest, ALongTimelineIsThinnedForDrawingButKeepsItsPeak) {
  app();
  analyzer::MemoryAnalysis memory = smallMemory();
  analyzer::DeviceMemory& d = memory.devices[0];
  d.timeline.clear();
  constexpr int kEvents = 200'000;
  for (int i = 0; i < kEvents; ++i) {
    // A sawtooth with one spike: the peak at event 123457.
    const std::int64_t bytes = (i == 123'457 ? 700 : 100 + i % 50) * kMiB;
    d.timeline.push_back({kStartNs + i * 1'000LL, bytes, 800 * kMiB});
  }
  d.peak_allocated_bytes = 700 * kMiB;
  d.peak_at_ns = kStartNs + 123'457'000;
  MemoryTab tab;
  tab.showRun(runWith(memory));
  const auto* allocated = seriesNamed<QLineSeries>(tab, "allocated");
  ASSERT_NE(allocated, nullptr);
  EXPECT_LT(allocated->count(), 20'000);
  EXPECT_DOUBLE_EQ(highest(*allocated), 700.0);
}

TEST(MemoryTabTest, ATraceWithoutMemoryEventsGetsAMessage) {
  app();
  MemoryTab tab;
  trace::Trace without_memory = ampscope::test::trainerCpuTrace();
  without_memory.memory_events.clear();
  tab.showRun(test::runOf(std::move(without_memory), "/runs/no-memory.ampscope"));
  auto* pages = tab.findChild<QStackedWidget*>();
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(pages->currentIndex(), 0);
  const auto* message = child<QLabel>(tab, "noMemoryMessage");
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->text().contains("no memory events"));
}

}  // namespace
}  // namespace ampscope::gui
