// OpPerformanceModel over runs built in code (an A100 run with shapes, the trainer's CPU run) and
// over a shared real trace: it copies the analyzer's per-op rows, row for row, shows an unknown
// figure as unknown, and sorts numbers as numbers with unknown below every known figure.

#include <cmath>
#include <limits>

#include <QAbstractItemModelTester>
#include <QStringList>

#include <gtest/gtest.h>

#include "gui/models/op_performance_model.h"
#include "gui/models/table_filter_proxy.h"
#include "reports/report_file.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/test_support.h"

namespace ampscope::gui {
namespace {

constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

QString text(const std::string& s) { return QString::fromStdString(s); }

TEST(OpPerformanceModelTest, PassesTheModelTesterThroughLoadsAndClears) {
  OpPerformanceModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  TableFilterProxy proxy(OpPerformanceModel::kSortRole);
  proxy.setSourceModel(&model);
  QAbstractItemModelTester proxy_tester(&proxy, kFatal);
  const analyzer::RunAnalysis gpu = test::gpuLayersRun();
  const analyzer::RunAnalysis cpu = test::trainerCpuRun();
  model.setRun(&gpu);
  EXPECT_EQ(static_cast<std::size_t>(model.rowCount()), gpu.summary.op_performance.rows.size());
  proxy.sort(OpPerformanceModel::kAchieved, Qt::DescendingOrder);
  model.setRun(&cpu);
  EXPECT_EQ(static_cast<std::size_t>(model.rowCount()), cpu.summary.op_performance.rows.size());
  model.setRun(nullptr);
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_FALSE(model.device());
}

TEST(OpPerformanceModelTest, CopiesTheAnalyzersRowsInItsOrderWithTheirRatesBoundAndPrediction) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  const analyzer::OpPerformance& ops = run.summary.op_performance;
  ASSERT_FALSE(ops.rows.empty());
  OpPerformanceModel model;
  model.setRun(&run);
  ASSERT_TRUE(model.device());
  EXPECT_EQ(model.device()->name, "A100 SXM");
  EXPECT_EQ(model.deviceReason().toStdString(), ops.device.reason);
  EXPECT_FALSE(model.recordedOnCpu());
  EXPECT_FALSE(model.hasWhatIf());  // a GPU run, no --gpu: no what-if projection
  int placed = 0;
  for (std::size_t i = 0; i < ops.rows.size(); ++i) {
    const analyzer::OpRow& op = ops.rows[i];
    const int row = static_cast<int>(i);
    EXPECT_EQ(model.at(row)->op.toStdString(), op.op);
    EXPECT_EQ(model.at(row)->analysis.time_ns, op.time_ns);
    EXPECT_EQ(model.index(row, OpPerformanceModel::kAchieved).data().toString(),
              op.achieved_tflops ? text(reports::formatTflops(*op.achieved_tflops)) : QStringLiteral("–"));
    EXPECT_EQ(model.index(row, OpPerformanceModel::kPredictedAmp).data().toString(),
              op.predicted_amp_ns ? text(reports::formatDuration(*op.predicted_amp_ns)) : QStringLiteral("–"));
    EXPECT_EQ(model.index(row, OpPerformanceModel::kBound).data().toString(),
              op.bound == analyzer::RooflineBound::kUnknown ? QStringLiteral("–") : QString(analyzer::roofBoundName(op.bound)));
    EXPECT_EQ(model.index(row, OpPerformanceModel::kWhatIfAmp).data().toString(), QString());
    placed += analyzer::onRoofline(op) ? 1 : 0;
  }
  EXPECT_EQ(model.rooflineRows(), placed);
  // embed's FP16 GEMM (64x256x512 from its recorded shapes) has a rate against the FP16 peak, an
  // intensity and an AMP prediction: the case the roofline draws.
  int embed = -1;
  for (int i = 0; i < model.rowCount(); ++i) {
    if (model.at(i)->layer == "embed" && model.at(i)->analysis.op_class == analyzer::OpClass::kMatrix) embed = i;
  }
  ASSERT_GE(embed, 0);
  const OpPerformanceModel::Row& row = *model.at(embed);
  ASSERT_TRUE(analyzer::onRoofline(row.analysis)) << row.analysis.rate_note;
  EXPECT_EQ(row.precision, "FP16");
  EXPECT_EQ(model.index(embed, OpPerformanceModel::kPeak).data().toString(), text(reports::formatTflops(312)));
  EXPECT_NE(model.index(embed, OpPerformanceModel::kIntensity).data().toString(), "–");
  // Its tooltip says every figure a point on the roofline stands for.
  const QString tip = model.index(embed, OpPerformanceModel::kOp).data(Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains("embed")) << tip.toStdString();
  EXPECT_TRUE(tip.contains(row.shapes)) << tip.toStdString();
  EXPECT_TRUE(tip.contains("achieved " + text(reports::formatTflops(*row.analysis.achieved_tflops)))) << tip.toStdString();
  EXPECT_TRUE(tip.contains("peak of " + text(reports::formatTflops(312)))) << tip.toStdString();
  EXPECT_TRUE(tip.contains("under AMP")) << tip.toStdString();
}

TEST(OpPerformanceModelTest, UnknownFiguresSortBelowKnownOnesAndNumbersSortAsNumbers) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  OpPerformanceModel model;
  model.setRun(&run);
  ASSERT_GT(model.rooflineRows(), 0);
  ASSERT_LT(model.rooflineRows(), model.rowCount()) << "the case needs a row without a rate";
  TableFilterProxy proxy(OpPerformanceModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.sort(OpPerformanceModel::kAchieved, Qt::DescendingOrder);
  double previous = std::numeric_limits<double>::infinity();
  bool seen_unknown = false;
  for (int i = 0; i < proxy.rowCount(); ++i) {
    const double value = proxy.index(i, OpPerformanceModel::kAchieved).data(OpPerformanceModel::kSortRole).toDouble();
    EXPECT_LE(value, previous);
    previous = value;
    const bool unknown = proxy.index(i, OpPerformanceModel::kAchieved).data().toString() == "–";
    if (unknown) seen_unknown = true;
    EXPECT_FALSE(seen_unknown && !unknown) << "a known rate sorted below an unknown one";
  }
  EXPECT_TRUE(seen_unknown);
}

TEST(OpPerformanceModelTest, ACpuRunHasNoDeviceOrRatesAndShowsTheWhatIfEstimatesMarkedAsEstimates) {
  const analyzer::RunAnalysis run = test::trainerCpuRun();
  const analyzer::WhatIfProjection& what_if = run.summary.what_if;
  ASSERT_NE(what_if.device.spec, nullptr);
  OpPerformanceModel model;
  model.setRun(&run);
  EXPECT_TRUE(model.recordedOnCpu());
  EXPECT_FALSE(model.device());
  EXPECT_EQ(model.rooflineRows(), 0);
  EXPECT_EQ(model.headerData(OpPerformanceModel::kTime, Qt::Horizontal).toString(), "Host time");
  ASSERT_TRUE(model.hasWhatIf());
  EXPECT_EQ(model.whatIfDevice().toStdString(), what_if.device.spec->name);
  EXPECT_EQ(model.headerData(OpPerformanceModel::kWhatIfAmp, Qt::Horizontal).toString(),
            text(what_if.device.spec->name) + " AMP / step (est.)");
  int estimated = 0;
  for (int i = 0; i < model.rowCount(); ++i) {
    const OpPerformanceModel::Row& row = *model.at(i);
    EXPECT_EQ(model.index(i, OpPerformanceModel::kAchieved).data().toString(), "–");
    EXPECT_FALSE(row.analysis.rate_note.empty());
    EXPECT_EQ(model.index(i, OpPerformanceModel::kNote).data().toString().toStdString(), row.analysis.rate_note);
    const std::int32_t entry = what_if.op_of_row[static_cast<std::size_t>(i)];
    if (entry < 0 || !what_if.ops[static_cast<std::size_t>(entry)].amp_ns) {
      EXPECT_EQ(model.index(i, OpPerformanceModel::kWhatIfAmp).data().toString(), "–");
      continue;
    }
    ++estimated;
    const double amp_ns = *what_if.ops[static_cast<std::size_t>(entry)].amp_ns;
    EXPECT_EQ(model.index(i, OpPerformanceModel::kWhatIfAmp).data().toString(),
              text(reports::formatDuration(std::llround(amp_ns))));
    EXPECT_DOUBLE_EQ(model.index(i, OpPerformanceModel::kWhatIfAmp).data(OpPerformanceModel::kSortRole).toDouble(), amp_ns);
  }
  EXPECT_GT(estimated, 0);
}

TEST(OpPerformanceModelTest, RealV100TraceRowsAreTheAnalyzersAndSomeArePlacedOnTheRoofline) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto run = analyzer::analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  OpPerformanceModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run.value());
  const analyzer::OpPerformance& ops = run->summary.op_performance;
  ASSERT_EQ(static_cast<std::size_t>(model.rowCount()), ops.rows.size());
  ASSERT_TRUE(model.device());
  EXPECT_EQ(model.device()->name, "V100 SXM2");
  EXPECT_FALSE(model.namesLayers());  // the trace names no layers
  EXPECT_GT(model.rooflineRows(), 0);
  for (int i = 0; i < model.rowCount(); ++i) {
    const analyzer::OpRow& row = model.at(i)->analysis;
    EXPECT_EQ(row.op, ops.rows[static_cast<std::size_t>(i)].op);
    // A rate above the peak is a wrong input, reported unknown by the analyzer: never shown.
    if (row.achieved_tflops && row.peak_tflops > 0) {
      EXPECT_LE(*row.achieved_tflops, row.peak_tflops) << row.op;
    }
  }
}

}  // namespace
}  // namespace ampscope::gui
