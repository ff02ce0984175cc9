// The AMP numerics tab draws the trainer's loss-scale history, skipped steps and loss per step and
// lists each tensor's gradient underflow; a trace without those counters gets a message instead.

#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTableWidget>

#include <gtest/gtest.h>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/numerics_tab.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using ampscope::test::kTrainerSkippedStep;
using ampscope::test::kTrainerSteps;
using test::app;
using test::child;

template <typename Series>
Series* seriesNamed(const NumericsTab& tab, const char* view, const char* name) {
  auto* chart_view = child<QChartView>(tab, view);
  if (!chart_view) return nullptr;
  for (QAbstractSeries* series : chart_view->chart()->series()) {
    if (series->objectName() == name) return qobject_cast<Series*>(series);
  }
  return nullptr;
}

QString labelText(const QWidget& tab, const char* name) {
  const auto* label = child<QLabel>(tab, name);
  return label ? label->text() : QString();
}

TEST(NumericsTabTest, DrawsOneLossScalePointPerStepAndMarksTheSkippedStepOnIt) {
  app();
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  const auto* scale = seriesNamed<QLineSeries>(tab, "lossScaleChart", "lossScale");
  ASSERT_NE(scale, nullptr);
  ASSERT_EQ(scale->count(), kTrainerSteps);
  for (int step = 0; step < kTrainerSteps; ++step) {
    EXPECT_EQ(scale->at(step).x(), step);
    // The scale halves after the overflow at step 3.
    EXPECT_EQ(scale->at(step).y(), step <= kTrainerSkippedStep ? 65536.0 : 32768.0) << step;
  }
  const auto* skipped = seriesNamed<QScatterSeries>(tab, "lossScaleChart", "skippedSteps");
  ASSERT_NE(skipped, nullptr);
  ASSERT_EQ(skipped->count(), 1);
  EXPECT_EQ(skipped->at(0), QPointF(kTrainerSkippedStep, 65536.0));
}

TEST(NumericsTabTest, DrawsTheLossOfEveryStep) {
  app();
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  const auto* loss = seriesNamed<QLineSeries>(tab, "lossChart", "loss");
  ASSERT_NE(loss, nullptr);
  ASSERT_EQ(loss->count(), kTrainerSteps);
  EXPECT_DOUBLE_EQ(loss->at(0).y(), 2.3);
  EXPECT_DOUBLE_EQ(loss->at(kTrainerSteps - 1).y(), 2.3 - 0.1 * (kTrainerSteps - 1));
}

TEST(NumericsTabTest, SummarizesLossScaleSkippedStepsAndHeadroomInCards) {
  app();
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  EXPECT_EQ(labelText(tab, "lossValue"), "2.3 → 1.8");
  EXPECT_EQ(labelText(tab, "lossScaleValue"), "32768");
  EXPECT_TRUE(labelText(tab, "lossScaleValueDetail").contains("min 32768, max 65536"));
  EXPECT_EQ(labelText(tab, "skippedStepsValue"), "1 of 6");
  EXPECT_EQ(labelText(tab, "skippedStepsValueDetail"), "steps 3");
  // fc2.weight's largest gradients reach 2^-2: a scale of 2^17 still keeps them under 2^15.
  EXPECT_EQ(labelText(tab, "headroomValue"), "131072");
}

TEST(NumericsTabTest, ListsEachTensorsUnderflowAndZeroShareLargestUnderflowFirst) {
  app();
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  const auto* table = child<QTableWidget>(tab, "gradientTensors");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rowCount(), 2);
  EXPECT_EQ(table->item(0, 0)->text(), "fc1.weight");
  // 1,568 of 78,400 values a step underflow (2%), 3,920 (5%) in the last step: 2.5% in all.
  EXPECT_EQ(table->item(0, 2)->text(), "2.5%");
  EXPECT_EQ(table->item(0, 3)->text(), "5.0%");
  EXPECT_EQ(table->item(0, 4)->text(), percentText(1000.0 / 78400.0));
  EXPECT_EQ(table->item(1, 0)->text(), "fc2.weight");
  EXPECT_EQ(table->item(1, 2)->text(), "0.0%");
  EXPECT_EQ(table->item(1, 4)->text(), "0.0%");
}

TEST(NumericsTabTest, AForeignTraceSaysItHasNoLossScaleCountersInsteadOfEmptyCharts) {
  app();
  AMPSCOPE_REQUIRE_SHARED_RUN(run, test::kResnetWorkers0);
  ASSERT_FALSE(run->summary.amp_numerics.recorded);
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  tab.showRun(run);
  const auto* message = child<QLabel>(tab, "noCountersMessage");
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->isVisibleTo(&tab));
  EXPECT_TRUE(message->text().contains("This trace has no loss-scale counters"));
  EXPECT_FALSE(child<QChartView>(tab, "lossScaleChart")->isVisibleTo(&tab));
  EXPECT_EQ(seriesNamed<QLineSeries>(tab, "lossScaleChart", "lossScale"), nullptr);
  EXPECT_EQ(child<QTableWidget>(tab, "gradientTensors")->rowCount(), 0);
}

TEST(NumericsTabTest, ShowsNoChartsWithoutARun) {
  app();
  NumericsTab tab;
  tab.showRun(test::trainerRun());
  tab.showRun(nullptr);
  EXPECT_TRUE(child<QLabel>(tab, "noCountersMessage")->isVisibleTo(&tab));
  EXPECT_EQ(seriesNamed<QLineSeries>(tab, "lossChart", "loss"), nullptr);
}

}  // namespace
}  // namespace ampscope::gui
