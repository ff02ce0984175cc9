// LayersModel over runs built in code (each colour state, sorting, filtering) and over the
// shared real traces (its rows add up to the analyzer's per-layer figures).

#include <cmath>

#include <QAbstractItemModelTester>
#include <QStringList>

#include <gtest/gtest.h>

#include "gui/models/layers_model.h"
#include "gui/models/table_filter_proxy.h"
#include "reports/report_file.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/test_support.h"

namespace ampscope::gui {
namespace {

using State = LayersModel::State;
constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

const LayersModel::Row* rowOf(const LayersModel& model, const QString& layer, const QString& pass) {
  for (int i = 0; i < model.rowCount(); ++i) {
    const LayersModel::Row* row = model.at(i);
    if (row->layer == layer && row->pass == pass) return row;
  }
  return nullptr;
}

QModelIndex cell(const LayersModel& model, const QString& layer, const QString& pass, int column) {
  for (int i = 0; i < model.rowCount(); ++i) {
    if (model.at(i)->layer == layer && model.at(i)->pass == pass) return model.index(i, column);
  }
  return {};
}

QStringList column(const QAbstractItemModel& model, int column, int role = Qt::DisplayRole) {
  QStringList out;
  for (int row = 0; row < model.rowCount(); ++row) out << model.index(row, column).data(role).toString();
  return out;
}

TEST(LayersModelTest, PassesTheModelTesterThroughLoadsAndClears) {
  LayersModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  TableFilterProxy proxy(LayersModel::kSortRole);
  proxy.setSourceModel(&model);
  QAbstractItemModelTester proxy_tester(&proxy, kFatal);
  const analyzer::RunAnalysis gpu = test::gpuLayersRun();
  const analyzer::RunAnalysis cpu = test::trainerCpuRun();
  model.setRun(&gpu);
  EXPECT_EQ(model.rowCount(), 5);
  proxy.sort(LayersModel::kTime, Qt::DescendingOrder);
  proxy.setTextFilter("head");
  EXPECT_EQ(proxy.rowCount(), 2);
  model.setRun(&cpu);
  EXPECT_EQ(model.rowCount(), 6);
  model.setRun(nullptr);
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(LayersModelTest, RowsArePerLayerAndPassInModelOrder) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  EXPECT_FALSE(model.groupsOperators());
  EXPECT_FALSE(model.recordedOnCpu());
  const QStringList expected = {"embed", "act", "proj", "head", "head"};
  EXPECT_EQ(column(model, LayersModel::kLayer), expected);
  EXPECT_EQ(column(model, LayersModel::kPass), (QStringList{"forward", "forward", "forward", "forward", "backward"}));
  const LayersModel::Row* embed = rowOf(model, "embed", "forward");
  ASSERT_NE(embed, nullptr);
  EXPECT_EQ(embed->analysis.calls, 2u);  // two steps
  EXPECT_EQ(embed->analysis.kernels, 4u);
  EXPECT_EQ(embed->analysis.time_ns, 2'200'000);
  EXPECT_EQ(embed->analysis.tensor_core_time_ns, 2'000'000);
  EXPECT_EQ(embed->op, "linear");
  EXPECT_EQ(embed->precision, "FP16");
  EXPECT_EQ(embed->shapes, "[[64,512],[256,512],[256]]");
  EXPECT_EQ(model.index(0, LayersModel::kTensorCoreShare).data().toString(), "90.9%");
  EXPECT_EQ(model.rowOfLayer("proj"), 2);
  EXPECT_EQ(model.rowOfLayer("missing"), -1);
}

TEST(LayersModelTest, MisalignedLayerIsColouredAsMisalignedWithThePaddedSize) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  const LayersModel::Row* proj = rowOf(model, "proj", "forward");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->analysis.state, State::kMisaligned);
  EXPECT_EQ(proj->analysis.violation_count, 1);
  EXPECT_EQ(proj->violations, "N=33278->33280 (x8)");
  EXPECT_EQ(proj->analysis.tensor_core_time_ns, proj->analysis.time_ns);
  const QModelIndex index = cell(model, "proj", "forward", LayersModel::kViolations);
  EXPECT_EQ(index.data(LayersModel::kStateRole).toInt(), static_cast<int>(State::kMisaligned));
  EXPECT_EQ(index.data(Qt::BackgroundRole).value<QColor>(), LayersModel::stateBackground(State::kMisaligned));
  EXPECT_EQ(index.data(Qt::ForegroundRole).value<QColor>(), LayersModel::stateForeground(State::kMisaligned));
  EXPECT_EQ(index.data(LayersModel::kSortRole).toInt(), 1);
}

TEST(LayersModelTest, EligibleLayerOnCudaCoresIsColouredAsEligibleNotOnTensorCores) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  for (const QString pass : {"forward", "backward"}) {
    const LayersModel::Row* head = rowOf(model, "head", pass);
    ASSERT_NE(head, nullptr) << pass.toStdString();
    EXPECT_EQ(head->analysis.state, State::kEligibleNotTensorCore) << pass.toStdString();
    EXPECT_TRUE(head->analysis.eligible);
    EXPECT_EQ(head->precision, "FP32-SIMT");
    EXPECT_EQ(head->analysis.tensor_core_time_ns, 0);
    EXPECT_EQ(head->analysis.violation_count, 0);  // aligned: the colour is about Tensor Cores alone
  }
  const QModelIndex index = cell(model, "head", "forward", LayersModel::kLayer);
  EXPECT_EQ(index.data(Qt::BackgroundRole).value<QColor>(), LayersModel::stateBackground(State::kEligibleNotTensorCore));
  EXPECT_EQ(cell(model, "head", "forward", LayersModel::kEligible).data().toString(), "yes");
  EXPECT_EQ(cell(model, "head", "forward", LayersModel::kViolations).data().toString(), "none");
  // The states' colours differ, or the legend could not tell them apart.
  EXPECT_NE(LayersModel::stateBackground(State::kEligibleNotTensorCore), LayersModel::stateBackground(State::kMisaligned));
  EXPECT_NE(LayersModel::stateBackground(State::kFine), LayersModel::stateBackground(State::kHost));
}

TEST(LayersModelTest, LayerWithoutEligibleOpsAndAlignedTensorCoreLayerAreFine) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  const LayersModel::Row* act = rowOf(model, "act", "forward");
  ASSERT_NE(act, nullptr);
  EXPECT_FALSE(act->analysis.eligible);
  EXPECT_EQ(act->analysis.state, State::kFine);
  EXPECT_TRUE(act->shapes.isEmpty());
  EXPECT_EQ(rowOf(model, "embed", "forward")->analysis.state, State::kFine);
}

TEST(LayersModelTest, CpuRunRowsAreHostStateWithHostTimeAndNoTensorCoreFigures) {
  const analyzer::RunAnalysis run = test::trainerCpuRun();
  ASSERT_TRUE(run.summary.recorded_on_cpu);
  LayersModel model;
  model.setRun(&run);
  EXPECT_TRUE(model.recordedOnCpu());
  EXPECT_EQ(model.headerData(LayersModel::kTime, Qt::Horizontal).toString(), "Host time");
  ASSERT_EQ(model.rowCount(), 6);
  for (int i = 0; i < model.rowCount(); ++i) {
    EXPECT_EQ(model.at(i)->analysis.state, State::kHost) << model.at(i)->layer.toStdString();
    EXPECT_EQ(model.index(i, 0).data(Qt::BackgroundRole).value<QColor>(), LayersModel::stateBackground(State::kHost));
    EXPECT_EQ(model.index(i, LayersModel::kTensorCoreShare).data().toString(), "–");
  }
  // The shape findings still show: they are what AMP on a GPU will want.
  const LayersModel::Row* fc2 = rowOf(model, "fc2", "forward");
  ASSERT_NE(fc2, nullptr);
  EXPECT_GT(fc2->analysis.violation_count, 0);
  EXPECT_EQ(fc2->precision, "FP16");
  // The analyzer's layer table, row for row, in its order.
  const std::vector<analyzer::LayerRow>& table = run.summary.layer_table.rows;
  ASSERT_EQ(table.size(), 6u);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const LayersModel::Row* row = model.at(static_cast<int>(i));
    EXPECT_EQ(row->layer.toStdString(), table[i].layer);
    EXPECT_EQ(row->analysis.pass, table[i].pass);
    EXPECT_EQ(row->pass.toStdString(), trace::phaseName(table[i].pass));
    EXPECT_EQ(row->analysis.calls, table[i].calls);
    EXPECT_EQ(row->analysis.time_ns, table[i].time_ns);
  }
}

TEST(LayersModelTest, ShowsThePerOpModelsFiguresPerRowAsTheAnalyzerSummedThem) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  const std::vector<analyzer::LayerRow>& table = run.summary.layer_table.rows;
  ASSERT_EQ(static_cast<std::size_t>(model.rowCount()), table.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const analyzer::RowPerformance& p = table[i].performance;
    const int row = static_cast<int>(i);
    const std::string name = table[i].layer + " " + trace::phaseName(table[i].pass);
    EXPECT_EQ(model.index(row, LayersModel::kAchieved).data().toString(),
              p.achieved_tflops ? QString::fromStdString(reports::formatTflops(*p.achieved_tflops)) : QStringLiteral("–"))
        << name;
    EXPECT_EQ(model.index(row, LayersModel::kPeak).data().toString(),
              p.peak_tflops > 0 ? QString::fromStdString(reports::formatTflops(p.peak_tflops)) : QStringLiteral("–"))
        << name;
    EXPECT_EQ(model.index(row, LayersModel::kPredictedAmp).data().toString(),
              p.predicted_amp_ns ? QString::fromStdString(reports::formatDuration(*p.predicted_amp_ns)) : QStringLiteral("–"))
        << name;
  }
  // head's FP32 GEMMs on CUDA cores: measured against the A100's FP32 peak, with a prediction
  // under AMP shorter than the time they took.
  const LayersModel::Row* head = rowOf(model, "head", "forward");
  ASSERT_NE(head, nullptr);
  ASSERT_TRUE(head->analysis.performance.achieved_tflops);
  EXPECT_EQ(cell(model, "head", "forward", LayersModel::kPeak).data().toString(), "19.5 TFLOP/s");
  ASSERT_TRUE(head->analysis.performance.predicted_amp_ns);
  EXPECT_LT(cell(model, "head", "forward", LayersModel::kPredictedAmp).data(LayersModel::kSortRole).toDouble(),
            static_cast<double>(head->analysis.time_ns));
  // A GPU run without --gpu has no what-if projection: its columns are empty and say why.
  EXPECT_FALSE(model.hasWhatIf());
  EXPECT_EQ(cell(model, "head", "forward", LayersModel::kWhatIfAmp).data().toString(), QString());
  EXPECT_EQ(model.headerData(LayersModel::kWhatIfAmp, Qt::Horizontal).toString(), "What-if AMP");
}

TEST(LayersModelTest, ACpuRunShowsTheWhatIfEstimatesPerStepOnTheDefaultGpuMarkedAsEstimates) {
  const analyzer::RunAnalysis run = test::trainerCpuRun();
  const analyzer::WhatIfProjection& what_if = run.summary.what_if;
  ASSERT_NE(what_if.device.spec, nullptr);
  ASSERT_TRUE(what_if.default_device);
  LayersModel model;
  model.setRun(&run);
  ASSERT_TRUE(model.hasWhatIf());
  EXPECT_EQ(model.whatIfDevice().toStdString(), analyzer::kDefaultWhatIfGpu);
  EXPECT_EQ(model.headerData(LayersModel::kWhatIfFp32, Qt::Horizontal).toString(), "H100 SXM FP32 / step (est.)");
  EXPECT_EQ(model.headerData(LayersModel::kWhatIfAmp, Qt::Horizontal).toString(), "H100 SXM AMP / step (est.)");
  EXPECT_TRUE(model.headerData(LayersModel::kWhatIfAmp, Qt::Horizontal, Qt::ToolTipRole).toString().contains("not measured"));
  int estimated = 0;
  for (int i = 0; i < model.rowCount(); ++i) {
    const analyzer::LayerRow& layer = model.at(i)->analysis;
    // Host ops have no GPU rate.
    EXPECT_EQ(model.index(i, LayersModel::kAchieved).data().toString(), "–");
    if (!layer.what_if_amp_ns) continue;
    ++estimated;
    EXPECT_EQ(model.index(i, LayersModel::kWhatIfAmp).data().toString().toStdString(),
              reports::formatDuration(std::llround(*layer.what_if_amp_ns)));
    ASSERT_TRUE(layer.what_if_fp32_ns);
    EXPECT_EQ(model.index(i, LayersModel::kWhatIfFp32).data().toString().toStdString(),
              reports::formatDuration(std::llround(*layer.what_if_fp32_ns)));
    EXPECT_TRUE(model.index(i, LayersModel::kWhatIfAmp).data(Qt::ToolTipRole).toString().contains("Model estimate"));
  }
  EXPECT_GT(estimated, 0);
  // The AMP time that dimensions off the multiple of 8 cost is in the estimate's tooltip, where
  // the analyzer found one.
  for (int i = 0; i < model.rowCount(); ++i) {
    const QString tip = model.index(i, LayersModel::kWhatIfAmp).data(Qt::ToolTipRole).toString();
    EXPECT_EQ(tip.contains("off the multiple of 8 cost"), model.at(i)->analysis.what_if_padding_cost_ns > 0) << tip.toStdString();
  }
}

TEST(LayersModelTest, TimeColumnSortsByValueNotByText) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  TableFilterProxy proxy(LayersModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.sort(LayersModel::kTime, Qt::AscendingOrder);
  const QStringList by_value = column(proxy, LayersModel::kTime);
  EXPECT_EQ(by_value, (QStringList{"900.0 us", "2.20 ms", "5.00 ms", "9.00 ms", "10.40 ms"}));
  QStringList by_text = by_value;
  by_text.sort();
  ASSERT_NE(by_text, by_value);  // the case this test is about: text order would differ
  proxy.sort(LayersModel::kTensorCoreShare, Qt::DescendingOrder);
  EXPECT_EQ(proxy.index(0, LayersModel::kLayer).data().toString(), "proj");  // 100%
}

TEST(LayersModelTest, TextFilterIsCaseInsensitiveOverTheChosenColumns) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  TableFilterProxy proxy(LayersModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.setTextColumns({LayersModel::kLayer, LayersModel::kOp, LayersModel::kPass});
  proxy.setTextFilter("PROJ");
  ASSERT_EQ(proxy.rowCount(), 1);
  EXPECT_EQ(proxy.index(0, LayersModel::kLayer).data().toString(), "proj");
  proxy.setTextFilter("Linear");
  EXPECT_EQ(column(proxy, LayersModel::kLayer), (QStringList{"embed", "proj", "head", "head"}));
  proxy.setTextFilter("head backward");
  EXPECT_EQ(proxy.rowCount(), 1);
  proxy.setTextFilter("FP16");  // a precision: not a chosen column
  EXPECT_EQ(proxy.rowCount(), 0);
  proxy.setTextFilter("");
  EXPECT_EQ(proxy.rowCount(), 5);
}

TEST(LayersModelTest, StateRoleFilterKeepsTheRowsThatNeedAttention) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  TableFilterProxy proxy(LayersModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.setRoleFilter(LayersModel::kStateRole, static_cast<int>(State::kEligibleNotTensorCore));
  EXPECT_EQ(column(proxy, LayersModel::kLayer), (QStringList{"head", "head"}));
  proxy.clearRoleFilter();
  EXPECT_EQ(proxy.rowCount(), 5);
}

TEST(LayersModelTest, RealBf16TraceRowsAddUpToTheAnalyzersLayerTimes) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  auto run = analyzer::analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  LayersModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run.value());
  EXPECT_FALSE(model.groupsOperators());
  ASSERT_FALSE(run->summary.layers.empty());
  // The whole table: one row per row of the analyzer's layer table, no top N below the view.
  EXPECT_EQ(static_cast<std::size_t>(model.rowCount()), run->summary.layer_table.rows.size());
  for (const analyzer::GroupTime& layer : run->summary.layers) {
    std::int64_t time = 0;
    std::int64_t tensor_core = 0;
    for (int i = 0; i < model.rowCount(); ++i) {
      if (model.at(i)->layer.toStdString() != layer.name) continue;
      time += model.at(i)->analysis.time_ns;
      tensor_core += model.at(i)->analysis.tensor_core_time_ns;
    }
    EXPECT_EQ(time, layer.gpu_time_ns) << layer.name;
    EXPECT_EQ(tensor_core, layer.tensor_core_time_ns) << layer.name;
  }
  const int attention = model.rowOfLayer(QString::fromStdString(run->summary.layers.front().name));
  ASSERT_GE(attention, 0);
  EXPECT_TRUE(model.at(attention)->analysis.eligible);
  EXPECT_EQ(model.at(attention)->precision, "BF16");
}

TEST(LayersModelTest, RealFp32TraceWithoutLayerNamesShowsConvolutionsOffTensorCores) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto run = analyzer::analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  LayersModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run.value());
  EXPECT_TRUE(model.groupsOperators());
  EXPECT_EQ(model.headerData(LayersModel::kLayer, Qt::Horizontal).toString(), "Operator");
  const int conv = model.rowOfLayer("aten::conv2d");
  ASSERT_GE(conv, 0);
  EXPECT_EQ(model.at(conv)->analysis.state, State::kEligibleNotTensorCore);
  EXPECT_EQ(model.at(conv)->precision, "FP32-SIMT");
  const int relu = model.rowOfLayer("aten::relu_");
  ASSERT_GE(relu, 0);
  EXPECT_EQ(model.at(relu)->analysis.state, State::kFine);
}

}  // namespace
}  // namespace ampscope::gui

namespace ampscope::gui {
namespace {

TEST(LayersModelTest, MeasuredColumnSitsBesideTheTensorCoreShareBlankWhereNotMeasured) {
  const analyzer::RunAnalysis run = test::gpuLayersRunWithCounters();
  LayersModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run);
  EXPECT_TRUE(model.hasCounters());
  EXPECT_EQ(LayersModel::kMeasuredActive, LayersModel::kTensorCoreShare + 1);
  EXPECT_EQ(model.headerData(LayersModel::kMeasuredActive, Qt::Horizontal).toString(), "Tensor pipe active (measured)");
  EXPECT_EQ(cell(model, "embed", "forward", LayersModel::kMeasuredActive).data().toString(), "65.0%");
  EXPECT_EQ(cell(model, "head", "forward", LayersModel::kMeasuredActive).data().toString(), "0.0%");
  EXPECT_EQ(cell(model, "head", "backward", LayersModel::kMeasuredActive).data().toString(), "");
  EXPECT_TRUE(cell(model, "embed", "forward", LayersModel::kMeasuredActive)
                  .data(Qt::ToolTipRole).toString().contains("over 2.00 ms"));
  EXPECT_TRUE(cell(model, "head", "backward", LayersModel::kMeasuredActive)
                  .data(Qt::ToolTipRole).toString().contains("None of its kernels was measured"));
  TableFilterProxy proxy(LayersModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.sort(LayersModel::kMeasuredActive, Qt::DescendingOrder);
  EXPECT_EQ(proxy.index(0, LayersModel::kLayer).data().toString(), "embed");
}

TEST(LayersModelTest, WithoutCountersTheMeasuredColumnIsBlank) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  LayersModel model;
  model.setRun(&run);
  EXPECT_FALSE(model.hasCounters());
  EXPECT_EQ(column(model, LayersModel::kMeasuredActive), QStringList(model.rowCount(), QString()));
}

}  // namespace
}  // namespace ampscope::gui
