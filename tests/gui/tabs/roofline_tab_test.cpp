// The Roofline tab draws the analyzer's per-op rates against the device's roofs: every op with an
// intensity and an achieved rate is a dot where the analysis puts it, the roofs are the device
// table's bandwidth and peaks, and where no op can be placed a line says why instead of an empty
// chart.

#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTableView>

#include <gtest/gtest.h>

#include "gui/models/op_performance_model.h"
#include "gui/tabs/chart_style.h"
#include "gui/tabs/roofline_tab.h"
#include "reports/report_file.h"
#include "reports/roofline_style.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using test::app;
using test::child;

template <typename T>
QList<T*> seriesNamed(const RooflineTab& tab, const char* name) {
  QList<T*> out;
  auto* view = child<QChartView>(tab, "rooflineChart");
  if (!view) return out;
  for (QAbstractSeries* series : view->chart()->series()) {
    if (series->objectName() == name) out << qobject_cast<T*>(series);
  }
  return out;
}

int pointCount(const QList<QScatterSeries*>& series) {
  int count = 0;
  for (const QScatterSeries* s : series) count += s->count();
  return count;
}

RunPtr gpuLayersRun() { return std::make_shared<analyzer::RunAnalysis>(ampscope::test::gpuLayersRun()); }

TEST(RooflineTabTest, PlacesEveryOpWithARateAndAnIntensityWhereTheAnalysisPutsIt) {
  app();
  const RunPtr run = gpuLayersRun();
  RooflineTab tab;
  tab.showRun(run);
  ASSERT_TRUE(child<QChartView>(tab, "rooflineChart")->isVisibleTo(&tab));
  EXPECT_FALSE(child<QLabel>(tab, "rooflineEmptyNote")->isVisibleTo(&tab));
  const std::vector<analyzer::OpRow>& rows = run->summary.op_performance.rows;
  int placeable = 0;
  for (const analyzer::OpRow& row : rows) placeable += analyzer::onRoofline(row) ? 1 : 0;
  ASSERT_GT(placeable, 0);
  const QList<QScatterSeries*> dots = seriesNamed<QScatterSeries>(tab, "rooflineOps");
  ASSERT_FALSE(dots.isEmpty());
  EXPECT_EQ(pointCount(dots), placeable);
  for (const QScatterSeries* series : dots) {
    for (int p = 0; p < series->count(); ++p) {
      const int row = tab.rowOfPoint(series, p);
      ASSERT_GE(row, 0);
      const analyzer::OpRow& op = rows[static_cast<std::size_t>(row)];
      EXPECT_DOUBLE_EQ(series->at(p).x(), *op.intensity) << op.op;
      EXPECT_DOUBLE_EQ(series->at(p).y(), *op.achieved_tflops) << op.op;
      // The tooltip names the op and its figures.
      const QString tip = tab.pointToolTip(series, p);
      EXPECT_TRUE(tip.startsWith(QString::fromStdString(op.op))) << tip.toStdString();
      EXPECT_TRUE(tip.contains("achieved")) << tip.toStdString();
      EXPECT_TRUE(tip.contains("under AMP")) << tip.toStdString();
      if (!op.layer.empty()) {
        EXPECT_TRUE(tip.contains(QString::fromStdString(op.layer))) << tip.toStdString();
      }
    }
  }
  EXPECT_EQ(tab.rowOfPoint(dots.front(), dots.front()->count()), -1);
}

TEST(RooflineTabTest, DrawsTheDevicesMemoryRoofAndTheRoofsTheAnalysisChose) {
  app();
  RooflineTab tab;
  const RunPtr run = gpuLayersRun();
  tab.showRun(run);  // an A100 SXM 80GB: 2039 GB/s; FP32 19.5, TF32 156, FP16/BF16 312
  const QList<QLineSeries*> memory = seriesNamed<QLineSeries>(tab, "memoryRoof");
  ASSERT_EQ(memory.size(), 1);
  EXPECT_EQ(memory.front()->name(), "DRAM 2039 GB/s");
  // The slope is the bandwidth: TFLOP/s = GB/s x FLOP/byte / 1000, up to the highest peak.
  const QPointF end = memory.front()->at(memory.front()->count() - 1);
  EXPECT_NEAR(end.y(), 312.0, 1e-9);
  EXPECT_NEAR(end.y() / end.x(), 2039.0 / 1e3, 1e-9);
  QStringList peaks;
  for (const QLineSeries* roof : seriesNamed<QLineSeries>(tab, "peakRoof")) {
    peaks << roof->name();
    EXPECT_DOUBLE_EQ(roof->at(0).y(), roof->at(1).y()) << roof->name().toStdString();  // flat
  }
  // FP16 and FP32 matrix math on CUDA cores ran: their peaks, and TF32, where allow_tf32 would
  // take the FP32 math. No BF16: AMP's roof is already the FP16 one.
  EXPECT_EQ(peaks, (QStringList{"FP32-SIMT peak 19.5 TFLOP/s", "TF32 (allow_tf32) peak 156 TFLOP/s",
                                "FP16 peak 312 TFLOP/s"}));
  // Exactly the roofs the analysis chose, as report.html draws them.
  QStringList chosen;
  for (const analyzer::RooflineRoof& roof : analyzer::rooflineOf(run->summary.op_performance, false).roofs) {
    chosen << QStringLiteral("%1 peak %2").arg(toQString(reports::roofLabel(roof)), toQString(reports::formatTflops(roof.tflops)));
  }
  EXPECT_EQ(peaks, chosen);
}

TEST(RooflineTabTest, ClickingADotSelectsItsOpInTheTable) {
  app();
  const RunPtr run = gpuLayersRun();
  RooflineTab tab;
  tab.showRun(run);
  const QList<QScatterSeries*> dots = seriesNamed<QScatterSeries>(tab, "rooflineOps");
  ASSERT_FALSE(dots.isEmpty());
  QScatterSeries* series = dots.back();
  const int row = tab.rowOfPoint(series, 0);
  emit series->clicked(series->at(0));
  const auto* table = child<QTableView>(tab, "opPerformanceTable");
  ASSERT_TRUE(table->currentIndex().isValid());
  EXPECT_EQ(table->currentIndex().siblingAtColumn(OpPerformanceModel::kOp).data().toString().toStdString(),
            run->summary.op_performance.rows[static_cast<std::size_t>(row)].op);
}

TEST(RooflineTabTest, ACpuRunSaysWhyThereIsNoRooflineInsteadOfDrawingAnEmptyChart) {
  app();
  const RunPtr run = test::trainerRun();
  RooflineTab tab;
  tab.showRun(run);
  EXPECT_FALSE(child<QChartView>(tab, "rooflineChart")->isVisibleTo(&tab));
  const auto* note = child<QLabel>(tab, "rooflineEmptyNote");
  ASSERT_TRUE(note->isVisibleTo(&tab));
  EXPECT_TRUE(note->text().contains("recorded on the CPU")) << note->text().toStdString();
  ASSERT_NE(run->summary.what_if.device.spec, nullptr);
  EXPECT_TRUE(note->text().contains(QString::fromStdString(run->summary.what_if.device.spec->name)))
      << note->text().toStdString();
  // The table still lists every op, with its what-if estimates.
  EXPECT_EQ(static_cast<std::size_t>(child<QTableView>(tab, "opPerformanceTable")->model()->rowCount()),
            run->summary.op_performance.rows.size());
  EXPECT_FALSE(child<QTableView>(tab, "opPerformanceTable")->isColumnHidden(OpPerformanceModel::kWhatIfAmp));
}

TEST(RooflineTabTest, AnUnknownGpuSaysToNameItWithTheGpuOption) {
  app();
  trace::Trace trace = ampscope::test::GpuLayersTraceBuilder().build();
  trace.devices.front().name = trace.strings.intern("Prototype accelerator");
  trace.devices.front().compute_major = 0;
  trace.devices.front().compute_minor = 0;
  const RunPtr run = std::make_shared<analyzer::RunAnalysis>(ampscope::test::analyzeInMemory(std::move(trace)));
  ASSERT_EQ(run->summary.op_performance.device.spec, nullptr);
  RooflineTab tab;
  tab.showRun(run);
  EXPECT_FALSE(child<QChartView>(tab, "rooflineChart")->isVisibleTo(&tab));
  const QString note = child<QLabel>(tab, "rooflineEmptyNote")->text();
  EXPECT_TRUE(note.contains("--gpu NAME")) << note.toStdString();
}

TEST(RooflineTabTest, ARealV100TracesConvolutionsSitUnderTheFp32Roof) {
  app();
  AMPSCOPE_REQUIRE_SHARED_RUN(run, test::kResnetWorkers0);
  RooflineTab tab;
  tab.showRun(run);
  ASSERT_TRUE(child<QChartView>(tab, "rooflineChart")->isVisibleTo(&tab));
  EXPECT_TRUE(child<QLabel>(tab, "rooflineHeading")->text().contains("V100 SXM2"));
  const QList<QScatterSeries*> dots = seriesNamed<QScatterSeries>(tab, "rooflineOps");
  int placeable = 0;
  for (const analyzer::OpRow& row : run->summary.op_performance.rows) placeable += analyzer::onRoofline(row) ? 1 : 0;
  EXPECT_EQ(pointCount(dots), placeable);
  EXPECT_GT(placeable, 0);
  QStringList peaks;
  for (const QLineSeries* roof : seriesNamed<QLineSeries>(tab, "peakRoof")) peaks << roof->name();
  // A V100 has no TF32 or BF16: FP32 on CUDA cores, and FP16 Tensor Cores where AMP would take it.
  EXPECT_EQ(peaks, (QStringList{"FP32-SIMT peak 15.7 TFLOP/s", "FP16 (AMP) peak 125 TFLOP/s"}));
  // The note says how many ops are placed, out of how many.
  EXPECT_TRUE(child<QLabel>(tab, "rooflineNote")->text().contains(
      QStringLiteral("%1 of %2 op call shapes").arg(placeable).arg(run->summary.op_performance.rows.size())));
}

TEST(RooflineTabTest, ClosingTheRunClearsTheChart) {
  app();
  RooflineTab tab;
  tab.showRun(gpuLayersRun());
  tab.showRun(nullptr);
  EXPECT_TRUE(seriesNamed<QScatterSeries>(tab, "rooflineOps").isEmpty());
  EXPECT_TRUE(child<QLabel>(tab, "rooflineEmptyNote")->isVisibleTo(&tab));
  EXPECT_EQ(child<QTableView>(tab, "opPerformanceTable")->model()->rowCount(), 0);
}

}  // namespace
}  // namespace ampscope::gui
