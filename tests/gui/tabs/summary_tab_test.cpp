// The Summary tab shows a run's headline figures, its step breakdown and its top recommendations,
// for the trainer's CPU run (host-op breakdown, no Tensor Core claims) and for a real GPU trace.

#include <algorithm>
#include <numeric>

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_table_model.h"
#include "gui/tabs/summary_tab.h"
#include "reports/report_rows.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using test::app;
using test::child;

QString labelText(const QWidget& tab, const char* name) {
  const auto* label = child<QLabel>(tab, name);
  return label ? label->text() : QString();
}

QHorizontalStackedBarSeries* breakdownSeries(const SummaryTab& tab) {
  auto* view = child<QChartView>(tab, "stepBreakdownChart");
  if (!view || view->chart()->series().isEmpty()) return nullptr;
  return qobject_cast<QHorizontalStackedBarSeries*>(view->chart()->series().front());
}

double sumOfSets(const QHorizontalStackedBarSeries& series) {
  double sum = 0;
  for (const QBarSet* set : series.barSets()) sum += set->at(0);
  return sum;
}

TEST(SummaryTabTest, ShowsTheTrainerRunsIterationsStepTimeAndExposedDataLoading) {
  app();
  SummaryTab tab;
  tab.showRun(test::trainerRun());
  EXPECT_EQ(labelText(tab, "deviceValue"), "CPU: Test CPU (2 threads)");
  EXPECT_EQ(labelText(tab, "iterationsValue"), "6");
  EXPECT_TRUE(labelText(tab, "iterationsValueDetail").startsWith("1 warm-up, 5 steady"));
  EXPECT_EQ(labelText(tab, "stepTimeValue"), "10.00 ms ± 0 ns");
  // 2 ms of every 10 ms step loads data with no op running.
  EXPECT_EQ(labelText(tab, "dataExposureValue"), "20.0%");
  EXPECT_TRUE(labelText(tab, "dataExposureValueDetail").startsWith("2.00 ms per step"));
}

TEST(SummaryTabTest, SaysPlainlyThatACpuRunHasNoTensorCoreFiguresOrProjection) {
  app();
  SummaryTab tab;
  const RunPtr run = test::trainerRun();
  tab.showRun(run);
  EXPECT_EQ(labelText(tab, "tensorCoreShareValue"), "n/a");
  EXPECT_TRUE(labelText(tab, "tensorCoreShareValueDetail").contains("need a GPU run"));
  // No measured projection: the what-if projection's estimate on a GPU, labelled as a model
  // estimate, in its place.
  ASSERT_TRUE(run->summary.amdahl.parts.empty());
  EXPECT_TRUE(run->summary.amdahl.note.find("a measured AMP projection needs a GPU run") != std::string::npos)
      << run->summary.amdahl.note;
  const analyzer::WhatIfProjection& what_if = run->summary.what_if;
  ASSERT_NE(what_if.device.spec, nullptr);
  ASSERT_GT(what_if.step_amp_ns, 0);
  EXPECT_EQ(labelText(tab, "ampSpeedupValueCaption"), "AMP WHAT-IF (MODEL ESTIMATE)");
  EXPECT_EQ(labelText(tab, "ampSpeedupValue"), speedupText(*what_if.ampSpeedup()));
  const QString detail = labelText(tab, "ampSpeedupValueDetail");
  EXPECT_TRUE(detail.startsWith("model estimate on the " + QString::fromStdString(what_if.device.spec->name)))
      << detail.toStdString();
  EXPECT_TRUE(detail.contains("no measured projection: that needs a GPU run")) << detail.toStdString();
  EXPECT_EQ(labelText(tab, "ampCeilingValue"), "none");
  const auto* note = child<QLabel>(tab, "cpuRunNote");
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(note->isVisibleTo(&tab));
  EXPECT_TRUE(note->text().contains("they need a GPU run"));
  // No device row for the rates, in the words every report uses, and the GPU the estimates are for.
  EXPECT_EQ(labelText(tab, "deviceRowValue").toStdString(), reports::deviceWords(run->summary).row);
  EXPECT_TRUE(labelText(tab, "deviceRowValueDetail").contains("recorded on the CPU"));
  EXPECT_TRUE(labelText(tab, "deviceRowValueDetail").contains(QString::fromStdString(what_if.device.spec->name)));
  EXPECT_EQ(labelText(tab, "mfuValue"), "n/a");
  EXPECT_TRUE(labelText(tab, "mfuValueDetail").startsWith("recorded on the CPU"));
}

TEST(SummaryTabTest, BreaksTheCpuRunsStepIntoHostOpsByPassExposedLoadingAndTheRest) {
  app();
  SummaryTab tab;
  tab.showRun(test::trainerRun());
  const QHorizontalStackedBarSeries* series = breakdownSeries(tab);
  ASSERT_NE(series, nullptr);
  QStringList labels;
  for (const QBarSet* set : series->barSets()) labels << set->label();
  ASSERT_GE(labels.size(), 5);
  // Forward: fc1 0.8 + act1 0.3 + fc2 0.8 ms; backward: 0.8 + 0.3 + 1.3 ms; the step is 10 ms.
  EXPECT_TRUE(labels[0].startsWith("forward ops  1.90 ms")) << labels[0].toStdString();
  EXPECT_TRUE(labels[1].startsWith("backward ops  2.40 ms")) << labels[1].toStdString();
  EXPECT_TRUE(labels.filter("exposed data loading  2.00 ms").size() == 1) << labels.join(" | ").toStdString();
  EXPECT_NEAR(sumOfSets(*series), 10.0, 1e-6);
}

RunPtr gpuLayersRun() { return test::runOf(ampscope::test::GpuLayersTraceBuilder().build(), "/runs/gpu-layers.ampscope"); }

std::size_t actionCount(const analyzer::RunAnalysis& run) {
  return static_cast<std::size_t>(std::count_if(run.recommendations.begin(), run.recommendations.end(),
                                                [](const analyzer::Recommendation& r) { return !analyzer::isNote(r); }));
}

TEST(SummaryTabTest, ListsTheTopFiveRecommendationsInTheAnalyzersOrder) {
  app();
  SummaryTab tab;
  const RunPtr run = gpuLayersRun();
  const std::size_t actions = actionCount(*run);
  ASSERT_GT(actions, 0U);
  tab.showRun(run);
  const auto* table = child<QTableWidget>(tab, "topRecommendations");
  ASSERT_NE(table, nullptr);
  const auto expected = std::min<std::size_t>(actions, SummaryTab::kTopRecommendations);
  ASSERT_EQ(table->rowCount(), static_cast<int>(expected));
  for (int row = 0; row < table->rowCount(); ++row) {
    const analyzer::Recommendation& r = run->recommendations[static_cast<std::size_t>(row)];
    EXPECT_FALSE(analyzer::isNote(r));
    EXPECT_EQ(table->item(row, 3)->text().toStdString(), r.rule);
    EXPECT_EQ(table->item(row, 4)->text().toStdString(), r.target);
    EXPECT_EQ(table->item(row, 1)->text(), durationText(r.estimated_gain_ns));
  }
  EXPECT_EQ(labelText(tab, "recommendationCountValue"), QString::number(actions));
}

// Findings without a gain (a CPU run's padding) are notes: counted, not listed as actions, and the
// summary says so in a line.
TEST(SummaryTabTest, FindingsWithoutAGainAreCountedAsNotesNotListedAsActions) {
  app();
  SummaryTab tab;
  const RunPtr run = test::trainerRun();
  const std::size_t actions = actionCount(*run);
  const std::size_t notes = run->recommendations.size() - actions;
  ASSERT_GT(notes, 0U);
  const QString notes_text = notes == 1 ? QStringLiteral("1 note") : QStringLiteral("%1 notes").arg(notes);
  tab.showRun(run);
  EXPECT_EQ(child<QTableWidget>(tab, "topRecommendations")->rowCount(), static_cast<int>(actions));
  EXPECT_EQ(labelText(tab, "recommendationCountValue"), QString::number(actions));
  EXPECT_TRUE(labelText(tab, "recommendationCountValueDetail").endsWith(notes_text + " (no gain)"))
      << labelText(tab, "recommendationCountValueDetail").toStdString();

  // The same run with its notes alone: an empty table is replaced by the line saying why.
  auto only_notes = std::make_shared<analyzer::RunAnalysis>(*run);
  std::erase_if(only_notes->recommendations, [](const analyzer::Recommendation& r) { return !analyzer::isNote(r); });
  tab.showRun(only_notes);
  EXPECT_EQ(child<QTableWidget>(tab, "topRecommendations")->rowCount(), 0);
  EXPECT_FALSE(child<QTableWidget>(tab, "topRecommendations")->isVisibleTo(&tab));
  EXPECT_EQ(labelText(tab, "recommendationsNote"),
            QStringLiteral("Nothing with a gain to claim on this run; the Recommendations tab lists %1 (no gain estimated).")
                .arg(notes_text));
  EXPECT_EQ(labelText(tab, "recommendationCountValue"), "0");
}

TEST(SummaryTabTest, SelectingATopRecommendationAboutALayerSelectsThatLayer) {
  app();
  SummaryTab tab;
  // The trainer's fc2 (N = 10) breaks the multiple-of-8 rule; on a GPU run padding it would have
  // a gain: made an action here, first, as the analyzer orders them.
  auto run = std::make_shared<analyzer::RunAnalysis>(*test::trainerRun());
  const auto fc2 = std::find_if(run->recommendations.begin(), run->recommendations.end(),
                                [](const analyzer::Recommendation& r) { return r.target == "size 10"; });
  ASSERT_NE(fc2, run->recommendations.end());
  analyzer::Recommendation finding = *fc2;
  finding.estimated_gain_ns = 1'000'000;
  run->recommendations.erase(fc2);
  run->recommendations.insert(run->recommendations.begin(), finding);
  tab.showRun(run);
  QSignalSpy selected(&tab, &RunView::layerSelected);
  child<QTableWidget>(tab, "topRecommendations")->selectRow(0);
  ASSERT_EQ(selected.count(), 1);
  EXPECT_EQ(selected.front().front().toString(), "fc2");
}

TEST(SummaryTabTest, ShowsARealGpuTracesTensorCoreShareProjectionAndAmdahlBreakdown) {
  app();
  AMPSCOPE_REQUIRE_SHARED_RUN(run, test::kResnetWorkers0);
  const analyzer::TraceSummary& s = run->summary;
  SummaryTab tab;
  tab.showRun(run);
  EXPECT_FALSE(child<QLabel>(tab, "cpuRunNote")->isVisibleTo(&tab));
  EXPECT_TRUE(labelText(tab, "deviceValue").contains("V100")) << labelText(tab, "deviceValue").toStdString();
  EXPECT_EQ(labelText(tab, "tensorCoreShareValue"), percentText(s.tensor_cores.fraction));
  EXPECT_EQ(labelText(tab, "iterationsValue"), QString::number(s.iterations.iterations.size()));
  EXPECT_EQ(labelText(tab, "dataExposureValue"), percentText(s.data_pipeline.exposed_fraction));
  ASSERT_FALSE(s.amdahl.parts.empty()) << s.amdahl.note;
  EXPECT_EQ(labelText(tab, "ampSpeedupValue"), speedupText(s.amdahl.projected_speedup));
  EXPECT_EQ(labelText(tab, "ampCeilingValue"), speedupText(s.amdahl.ceiling));

  const QHorizontalStackedBarSeries* series = breakdownSeries(tab);
  ASSERT_NE(series, nullptr);
  ASSERT_EQ(series->count(), static_cast<int>(s.amdahl.parts.size()));
  for (int i = 0; i < series->count(); ++i) {
    EXPECT_TRUE(series->barSets()[i]->label().startsWith(s.amdahl.parts[static_cast<std::size_t>(i)].label()));
  }
  // The parts add up to the steady step (each rounded down to whole nanoseconds).
  EXPECT_NEAR(sumOfSets(*series), static_cast<double>(s.iterations.steady_mean_ns) / 1e6, 1e-3);
}

TEST(SummaryTabTest, ATraceWithoutIterationsHasNoStepFiguresAndIsProjectedOverItsWindowOfGpuWork) {
  app();
  // nvprof's profile of a transformer LM holds kernels but no step ranges.
  AMPSCOPE_REQUIRE_SHARED_RUN(run, "nvprof-v100-transformer-lm/net.sql");
  const analyzer::AmdahlProjection& a = run->summary.amdahl;
  ASSERT_TRUE(run->summary.iterations.iterations.empty());
  SummaryTab tab;
  tab.showRun(run);
  EXPECT_EQ(labelText(tab, "iterationsValue"), "–");
  EXPECT_EQ(labelText(tab, "stepTimeValue"), "–");
  EXPECT_EQ(labelText(tab, "dataExposureValue"), "–");
  // The projection covers the trace's window of GPU work, and every place it shows says so.
  ASSERT_FALSE(a.parts.empty()) << a.note;
  ASSERT_FALSE(a.per_step);
  ASSERT_GT(a.window_ns, 0);
  EXPECT_EQ(labelText(tab, "ampSpeedupValue"), speedupText(a.projected_speedup));
  const QString window = "over the trace's " + durationText(a.window_ns) + " window (no steps found)";
  EXPECT_TRUE(labelText(tab, "ampSpeedupValueDetail").startsWith(window)) << labelText(tab, "ampSpeedupValueDetail").toStdString();
  EXPECT_EQ(labelText(tab, "ampCeilingValue"), speedupText(a.ceiling));
  EXPECT_TRUE(labelText(tab, "ampCeilingValueDetail").endsWith("over the window"));
  const auto* view = child<QChartView>(tab, "stepBreakdownChart");
  ASSERT_TRUE(view->isVisibleTo(&tab));
  EXPECT_EQ(view->chart()->title(), "Where the trace's window of GPU work goes (no steps found)");
  const QHorizontalStackedBarSeries* series = breakdownSeries(tab);
  ASSERT_NE(series, nullptr);
  ASSERT_EQ(series->count(), static_cast<int>(a.parts.size()));
  // The parts add up to the window (each rounded down to whole nanoseconds).
  EXPECT_NEAR(sumOfSets(*series), static_cast<double>(a.window_ns) / 1e6, 1e-3);
  EXPECT_TRUE(labelText(tab, "stepBreakdownNote").startsWith("The trace has no steps: the parts are " + window))
      << labelText(tab, "stepBreakdownNote").toStdString();
}

TEST(SummaryTabTest, ShowsTheDeviceTableRowWithWhyAndTheModelFlopUtilisation) {
  app();
  AMPSCOPE_REQUIRE_SHARED_RUN(run, test::kResnetWorkers0);
  const analyzer::TraceSummary& s = run->summary;
  SummaryTab tab;
  tab.showRun(run);
  ASSERT_NE(s.device.spec, nullptr);
  EXPECT_EQ(labelText(tab, "deviceRowValue"), "V100 SXM2");
  EXPECT_EQ(labelText(tab, "deviceRowValueDetail").toStdString(), s.device.reason);
  EXPECT_TRUE(labelText(tab, "deviceRowValueDetail").contains("Tesla V100-DGXS-32GB"));
  ASSERT_TRUE(s.op_performance.model_flop_utilisation);
  EXPECT_EQ(labelText(tab, "mfuValue"), percentText(*s.op_performance.model_flop_utilisation));
  EXPECT_TRUE(labelText(tab, "mfuValueDetail").contains("per step against the FP16/BF16 Tensor Core peak"))
      << labelText(tab, "mfuValueDetail").toStdString();
}

TEST(SummaryTabTest, AGpuTheDeviceTableDoesNotKnowIsNamedUnknownWithTheGpuOption) {
  app();
  // A GPU run on a GPU the table has no row for, its compute capability not recorded.
  trace::Trace trace = ampscope::test::GpuLayersTraceBuilder().build();
  trace.devices.front().name = trace.strings.intern("Prototype accelerator");
  trace.devices.front().compute_major = 0;
  trace.devices.front().compute_minor = 0;
  const RunPtr run = test::runOf(std::move(trace), "/runs/prototype.ampscope");
  ASSERT_FALSE(run->summary.recorded_on_cpu);
  ASSERT_EQ(run->summary.device.spec, nullptr);
  SummaryTab tab;
  tab.showRun(run);
  EXPECT_EQ(labelText(tab, "deviceRowValue"), "unknown");
  EXPECT_TRUE(labelText(tab, "deviceRowValueDetail").startsWith("device unknown — name it with --gpu NAME"))
      << labelText(tab, "deviceRowValueDetail").toStdString();
  EXPECT_EQ(labelText(tab, "mfuValue"), "n/a");
  EXPECT_EQ(labelText(tab, "ampSpeedupValue"), "n/a");
}

TEST(SummaryTabTest, ClearsEveryFigureWhenTheRunIsClosed) {
  app();
  SummaryTab tab;
  tab.showRun(test::trainerRun());
  tab.showRun(nullptr);
  for (const char* name : {"deviceValue", "deviceRowValue", "iterationsValue", "stepTimeValue", "tensorCoreShareValue",
                           "mfuValue", "dataExposureValue", "ampSpeedupValue", "ampCeilingValue"}) {
    EXPECT_EQ(labelText(tab, name), "–") << name;
  }
  EXPECT_EQ(breakdownSeries(tab), nullptr);
  EXPECT_EQ(child<QTableWidget>(tab, "topRecommendations")->rowCount(), 0);
  EXPECT_FALSE(child<QLabel>(tab, "cpuRunNote")->isVisibleTo(&tab));
  EXPECT_EQ(labelText(tab, "ampSpeedupValueCaption"), "AMP PROJECTION");
}

}  // namespace
}  // namespace ampscope::gui
