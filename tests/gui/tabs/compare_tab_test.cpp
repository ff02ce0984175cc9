// The Compare tab holds a second run against the first as `ampscope diff` does: the measured step
// speedup beside the first run's predictions, and a row and a bar per layer both runs share.

#include <map>

#include <QBarSet>
#include <QChartView>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include "analyzer/advice/run_comparison.h"
#include "gui/tabs/chart_style.h"
#include "gui/tabs/compare_tab.h"
#include "tests/analyzer/inference_run.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using test::app;
using test::child;

// The trainer's run with every host op taking half its time: each layer twice as fast.
RunPtr fasterTrainerRun() {
  trace::Trace trace = ampscope::test::trainerCpuTrace();
  for (trace::Kernel& op : trace.kernels) op.end_ns = op.start_ns + (op.end_ns - op.start_ns) / 2;
  return test::runOf(std::move(trace), "/runs/trainer-cpu-faster.ampscope");
}

QHorizontalBarSeries* speedupBars(const CompareTab& tab) {
  auto* view = child<QChartView>(tab, "layerSpeedupChart");
  if (!view) return nullptr;
  for (QAbstractSeries* series : view->chart()->series()) {
    if (auto* bars = qobject_cast<QHorizontalBarSeries*>(series)) return bars;
  }
  return nullptr;
}

std::map<QString, QString> speedupByRow(const QTableWidget& table) {
  std::map<QString, QString> out;
  for (int row = 0; row < table.rowCount(); ++row) out[table.item(row, 0)->text()] = table.item(row, 3)->text();
  return out;
}

TEST(CompareTabTest, ShowsTheMeasuredSpeedupOfEveryLayerBothRunsShare) {
  app();
  CompareTab tab;
  tab.showRun(test::trainerRun());
  tab.showComparison(fasterTrainerRun());
  const auto* table = child<QTableWidget>(tab, "layerComparison");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->horizontalHeaderItem(0)->text(), "Layer");
  const std::map<QString, QString> expected = {{"fc1", "2.00x"}, {"act1", "2.00x"}, {"fc2", "2.00x"}};
  EXPECT_EQ(speedupByRow(*table), expected);
  const QHorizontalBarSeries* bars = speedupBars(tab);
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->count(), 1);
  ASSERT_EQ(bars->barSets().front()->count(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(bars->barSets().front()->at(i), 2.0, 0.01);
}

TEST(CompareTabTest, ShowsTheMeasuredStepSpeedupBesideTheFirstRunsPredictions) {
  app();
  CompareTab tab;
  const RunPtr a = test::trainerRun();
  const RunPtr b = fasterTrainerRun();
  tab.showRun(a);
  tab.showComparison(b);
  const analyzer::RunComparison expected = analyzer::compareRuns(a->summary, b->summary);
  EXPECT_EQ(child<QLabel>(tab, "measuredSpeedupValue")->text(), speedupText(expected.measured_speedup));
  // The prediction held against it is the one the diff scores; two trainer runs of one model that
  // differ in no way the diff recognises have none.
  EXPECT_EQ(child<QLabel>(tab, "predictedSpeedupValue")->text(),
            expected.predicted_speedup ? speedupText(*expected.predicted_speedup) : QStringLiteral("–"));
  EXPECT_EQ(child<QLabel>(tab, "baselineStepValue")->text(), "10.00 ms");
  const auto* projections = child<QTableWidget>(tab, "projectionsTable");
  ASSERT_NE(projections, nullptr);
  ASSERT_EQ(projections->rowCount(), static_cast<int>(expected.a_projections.size() + 1));
  EXPECT_TRUE(projections->item(0, 2)->text().startsWith("measured"));
  for (std::size_t i = 0; i < expected.a_projections.size(); ++i) {
    const int row = static_cast<int>(i + 1);
    EXPECT_EQ(projections->item(row, 0)->text(), speedupText(expected.a_projections[i].speedup));
    EXPECT_TRUE(projections->item(row, 2)->text().endsWith(toQString(expected.a_projections[i].what)));
  }
}

// Two inference traces without steps (FP32 and BF16 on an H100): the GPU work of the traces is
// compared, each op over the whole trace, and the cards say so.
TEST(CompareTabTest, RunsWithoutStepsAreComparedByTheirGpuWork) {
  app();
  const std::string shapes = "[[512,2048],[2048,2048],[2048]]";
  const RunPtr a = test::runOf(ampscope::test::inferenceRun({{"aten::linear", shapes, "", "", R"(["float","float","float"])",
                                                              "ampere_sgemm_128x64_tn", 300'000}}, 2),
                               "/runs/fp32.json");
  const RunPtr b = test::runOf(
      ampscope::test::inferenceRun({{"aten::linear", shapes, "", "", R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])",
                                     "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 40'000}}, 2),
      "/runs/bf16.json");
  CompareTab tab;
  tab.showRun(a);
  tab.showComparison(b);
  const analyzer::RunComparison expected = analyzer::compareRuns(a->summary, b->summary);
  ASSERT_EQ(expected.measured_basis, analyzer::MeasuredBasis::kGpuWork);
  EXPECT_EQ(child<QLabel>(tab, "measuredSpeedupValue")->text(), "7.50x");
  const auto* table = child<QTableWidget>(tab, "layerComparison");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rowCount(), 1);
  EXPECT_EQ(table->horizontalHeaderItem(1)->text(), "A / trace");
  EXPECT_EQ(table->item(0, 3)->text(), "7.50x");
}

TEST(CompareTabTest, ComparesTwoRealTracesOperatorByOperatorWhereTheyNameNoLayers) {
  app();
  AMPSCOPE_REQUIRE_SHARED_RUN(a, test::kResnetWorkers0);
  AMPSCOPE_REQUIRE_SHARED_RUN(b, test::kResnetWorkers4);
  CompareTab tab;
  tab.showRun(a);
  tab.showComparison(b);
  const analyzer::RunComparison expected = analyzer::compareRuns(a->summary, b->summary);
  const bool by_layer = !a->summary.layers.empty() && !b->summary.layers.empty();
  std::map<QString, QString> common;
  for (const analyzer::OperatorComparison& row : by_layer ? expected.layers : expected.operators) {
    // Op call shapes pair across the runs: a row is its op and its shapes.
    const std::string label = row.shapes.empty() ? row.name : row.name + " " + row.shapes;
    if (row.a_trace_ns > 0 && row.b_trace_ns > 0) common[toQString(label)] = speedupText(row.speedup);
  }
  ASSERT_FALSE(common.empty());
  const auto* table = child<QTableWidget>(tab, "layerComparison");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->horizontalHeaderItem(0)->text(), by_layer ? "Layer" : "Operator");
  EXPECT_EQ(speedupByRow(*table), common);
  EXPECT_EQ(child<QLabel>(tab, "measuredSpeedupValue")->text(), speedupText(expected.measured_speedup));
  // The prediction held against it is the one the diff scores: A's for the change it found (data
  // loading, from 0 to 4 workers), not AMP's.
  ASSERT_TRUE(expected.predicted_speedup);
  EXPECT_EQ(child<QLabel>(tab, "predictedSpeedupValue")->text(), speedupText(*expected.predicted_speedup));
  const QHorizontalBarSeries* bars = speedupBars(tab);
  ASSERT_NE(bars, nullptr);
  EXPECT_EQ(bars->barSets().front()->count(), std::min<int>(static_cast<int>(common.size()), CompareTab::kChartedRows));
}

TEST(CompareTabTest, OpenSecondRunAsksTheWindowForTheFileOnceARunIsShown) {
  app();
  CompareTab tab;
  auto* open = child<QPushButton>(tab, "openSecondRunButton");
  ASSERT_NE(open, nullptr);
  EXPECT_FALSE(open->isEnabled());
  tab.showRun(test::trainerRun());
  ASSERT_TRUE(open->isEnabled());
  QSignalSpy requested(&tab, &CompareTab::requestComparisonFile);
  open->click();
  EXPECT_EQ(requested.count(), 1);
  EXPECT_TRUE(child<QLabel>(tab, "compareMessage")->isVisibleTo(&tab));
}

TEST(CompareTabTest, ClosingTheFirstRunDropsTheComparison) {
  app();
  CompareTab tab;
  tab.showRun(test::trainerRun());
  tab.showComparison(fasterTrainerRun());
  ASSERT_EQ(child<QTableWidget>(tab, "layerComparison")->rowCount(), 3);
  tab.showRun(nullptr);
  EXPECT_EQ(child<QTableWidget>(tab, "layerComparison")->rowCount(), 0);
  EXPECT_EQ(speedupBars(tab), nullptr);
  EXPECT_TRUE(child<QLabel>(tab, "compareMessage")->isVisibleTo(&tab));
}

}  // namespace
}  // namespace ampscope::gui
