// KernelsModel over runs built in code (grouping, verdicts, layer and verdict filters, sorting)
// and over a shared real trace (every kernel's time accounted for, TF32 Tensor Core verdicts).

#include <QAbstractItemModelTester>
#include <QStringList>

#include <gtest/gtest.h>

#include "gui/models/kernels_model.h"
#include "gui/models/table_filter_proxy.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/test_support.h"

namespace ampscope::gui {
namespace {

using Verdict = KernelsModel::Verdict;
constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

const KernelsModel::Row* rowOf(const KernelsModel& model, const char* name) {
  return model.at(model.rowOfKernel(QString::fromUtf8(name)));
}

QStringList names(const QAbstractItemModel& model) {
  QStringList out;
  for (int row = 0; row < model.rowCount(); ++row) {
    out << model.index(row, KernelsModel::kKernel).data(KernelsModel::kSortRole).toString();
  }
  return out;
}

TEST(KernelsModelTest, PassesTheModelTesterThroughLoadsAndLayerFilters) {
  KernelsModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  TableFilterProxy proxy(KernelsModel::kSortRole);
  proxy.setSourceModel(&model);
  QAbstractItemModelTester proxy_tester(&proxy, kFatal);
  const analyzer::RunAnalysis gpu = test::gpuLayersRun();
  const analyzer::RunAnalysis cpu = test::trainerCpuRun();
  model.setRun(&gpu);
  EXPECT_EQ(model.rowCount(), 7);
  proxy.sort(KernelsModel::kTime, Qt::DescendingOrder);
  proxy.setRoleFilter(KernelsModel::kVerdictRole, static_cast<int>(Verdict::kYes));
  model.setLayerFilter("head", trace::Phase::kBackward);
  EXPECT_EQ(model.rowCount(), 2);
  EXPECT_EQ(proxy.rowCount(), 0);
  model.setLayerFilter({});
  model.setRun(&cpu);
  model.setRun(nullptr);
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(KernelsModelTest, GroupsKernelsByNameWithCallsTimeAndVerdict) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  KernelsModel model;
  model.setRun(&run);
  const KernelsModel::Row* gemm = rowOf(model, test::kTensorCoreGemm);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->calls, 2u);
  EXPECT_EQ(gemm->time_ns, 2'000'000);
  EXPECT_EQ(gemm->verdict, Verdict::kYes);
  EXPECT_EQ(gemm->precision, "FP16");
  EXPECT_EQ(gemm->rule, "s16816-fp16");
  EXPECT_EQ(gemm->layer, "embed");
  const KernelsModel::Row* simt = rowOf(model, test::kSimtGemm);
  ASSERT_NE(simt, nullptr);
  EXPECT_EQ(simt->verdict, Verdict::kNo);
  EXPECT_EQ(simt->precision, "FP32-SIMT");
  EXPECT_EQ(simt->rule, "sgemm");
  EXPECT_TRUE(simt->evidence.startsWith("high confidence")) << simt->evidence.toStdString();
  // The align1 kernel says why it is slow: its operands are aligned to one element.
  EXPECT_TRUE(rowOf(model, test::kMisalignedGemm)->evidence.contains("aligned to 1 element"));
  // The bias add ran in two layers: named by the one with most of its time.
  const KernelsModel::Row* bias = rowOf(model, test::kBiasAdd);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->calls, 4u);
  EXPECT_EQ(bias->layer, "head");
  EXPECT_EQ(bias->other_layers, 1);
  EXPECT_EQ(bias->rule, "not-matrix");
  EXPECT_TRUE(bias->evidence.startsWith("low confidence: no kernel family recognised")) << bias->evidence.toStdString();
  const QModelIndex layer = model.index(model.rowOfKernel(test::kBiasAdd), KernelsModel::kLayer);
  EXPECT_EQ(layer.data().toString(), "head (+1 more)");
  EXPECT_EQ(layer.data(KernelsModel::kLayerRole).toString(), "head");
  std::int64_t total = 0;
  for (int i = 0; i < model.rowCount(); ++i) total += model.at(i)->time_ns;
  EXPECT_EQ(total, run.summary.gpu_kernel_time_ns);
  EXPECT_EQ(model.totalTimeNs(), total);
}

TEST(KernelsModelTest, LayerFilterRestrictsToTheLayersKernelsAndOptionallyItsPass) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  KernelsModel model;
  model.setRun(&run);
  model.setLayerFilter("head");
  EXPECT_EQ(names(model), (QStringList{test::kSimtGemm, test::kSimtGemmWeight, test::kSimtGemmBackward, test::kBiasAdd}));
  const KernelsModel::Row* bias = rowOf(model, test::kBiasAdd);
  EXPECT_EQ(bias->time_ns, 400'000);  // head's share of it only
  EXPECT_EQ(bias->other_layers, 0);
  EXPECT_NEAR(rowOf(model, test::kSimtGemm)->share, 10.0 / 15.4, 1e-9);  // of head's kernel time
  model.setLayerFilter("head", trace::Phase::kBackward);
  EXPECT_EQ(names(model), (QStringList{test::kSimtGemmWeight, test::kSimtGemmBackward}));
  EXPECT_EQ(model.passFilter(), trace::Phase::kBackward);
  model.setLayerFilter("no such layer");
  EXPECT_EQ(model.rowCount(), 0);
  model.setLayerFilter({});
  EXPECT_EQ(model.rowCount(), 7);
}

TEST(KernelsModelTest, EachLayerRowsKernelsAddUpToThatRowOfTheLayerTable) {
  for (const analyzer::RunAnalysis& run : {test::gpuLayersRun(), test::trainerCpuRun()}) {
    const std::vector<analyzer::LayerRow>& layers = run.summary.layer_table.rows;
    ASSERT_FALSE(layers.empty());
    KernelsModel model;
    model.setRun(&run);
    for (const analyzer::LayerRow& layer : layers) {
      model.setLayerFilter(QString::fromStdString(layer.layer), layer.pass);
      std::uint64_t calls = 0;
      for (int i = 0; i < model.rowCount(); ++i) calls += model.at(i)->calls;
      EXPECT_EQ(model.totalTimeNs(), layer.time_ns) << layer.layer << " " << trace::phaseName(layer.pass);
      EXPECT_EQ(calls, layer.kernels) << layer.layer << " " << trace::phaseName(layer.pass);
    }
  }
}

TEST(KernelsModelTest, VerdictFilterKeepsOneVerdictAndTextFilterReadsNames) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  KernelsModel model;
  model.setRun(&run);
  TableFilterProxy proxy(KernelsModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.setTextColumns({KernelsModel::kKernel, KernelsModel::kLayer});
  proxy.setRoleFilter(KernelsModel::kVerdictRole, static_cast<int>(Verdict::kYes));
  EXPECT_EQ(names(proxy), (QStringList{test::kMisalignedGemm, test::kTensorCoreGemm}));
  proxy.setRoleFilter(KernelsModel::kVerdictRole, static_cast<int>(Verdict::kNo));
  EXPECT_EQ(proxy.rowCount(), 5);
  proxy.setTextFilter("SGEMM");
  EXPECT_EQ(proxy.rowCount(), 3);
  proxy.setRoleFilter(KernelsModel::kVerdictRole, static_cast<int>(Verdict::kYes));
  EXPECT_EQ(proxy.rowCount(), 0);  // both filters hold at once
  proxy.setRoleFilter(KernelsModel::kVerdictRole, static_cast<int>(Verdict::kHost));
  proxy.setTextFilter({});
  EXPECT_EQ(proxy.rowCount(), 0);  // a GPU run has no host work
}

TEST(KernelsModelTest, TimeAndCallColumnsSortByValueNotByText) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  KernelsModel model;
  model.setRun(&run);
  TableFilterProxy proxy(KernelsModel::kSortRole);
  proxy.setSourceModel(&model);
  proxy.sort(KernelsModel::kTime, Qt::AscendingOrder);
  QStringList times;
  for (int row = 0; row < proxy.rowCount(); ++row) times << proxy.index(row, KernelsModel::kTime).data().toString();
  EXPECT_EQ(times, (QStringList{"600.0 us", "900.0 us", "2.00 ms", "2.00 ms", "3.00 ms", "9.00 ms", "10.00 ms"}));
  QStringList by_text = times;
  by_text.sort();
  ASSERT_NE(by_text, times);
  proxy.sort(KernelsModel::kCalls, Qt::DescendingOrder);
  EXPECT_EQ(proxy.index(0, KernelsModel::kKernel).data(KernelsModel::kSortRole).toString(), test::kBiasAdd);
}

TEST(KernelsModelTest, CpuRunKernelsAreHostWork) {
  const analyzer::RunAnalysis run = test::trainerCpuRun();
  KernelsModel model;
  model.setRun(&run);
  ASSERT_GT(model.rowCount(), 0);
  // Host ops are called host ops, a GPU run's kernels kernels.
  EXPECT_EQ(model.headerData(KernelsModel::kKernel, Qt::Horizontal).toString(), "Host op");
  const analyzer::RunAnalysis gpu = test::gpuLayersRun();
  KernelsModel gpu_model;
  gpu_model.setRun(&gpu);
  EXPECT_EQ(gpu_model.headerData(KernelsModel::kKernel, Qt::Horizontal).toString(), "Kernel");
  for (int i = 0; i < model.rowCount(); ++i) {
    EXPECT_EQ(model.at(i)->verdict, Verdict::kHost) << model.at(i)->name.toStdString();
    EXPECT_EQ(model.index(i, KernelsModel::kVerdict).data().toString(), "host");
  }
  const KernelsModel::Row* gemm = rowOf(model, "cpu gemm float16 64x100x784 NT");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->calls, static_cast<std::uint64_t>(test::kTrainerSteps));
  EXPECT_EQ(gemm->time_ns, test::kTrainerSteps * 800'000);
  EXPECT_EQ(gemm->layer, "fc1");
  EXPECT_EQ(gemm->precision, "FP16");
  // Work outside any layer (the optimizer's update) has no layer to select.
  EXPECT_TRUE(rowOf(model, "cpu sgd update float32")->layer.isEmpty());
  model.setLayerFilter("fc1", trace::Phase::kBackward);
  EXPECT_EQ(model.rowCount(), 2);
}

TEST(KernelsModelTest, RealTf32TraceAccountsForEveryKernelAndFindsTf32TensorCoreKernels) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  auto run = analyzer::analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  KernelsModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run.value());
  EXPECT_EQ(model.totalTimeNs(), run->summary.gpu_kernel_time_ns);
  std::int64_t tensor_core = 0;
  bool tf32 = false;
  for (int i = 0; i < model.rowCount(); ++i) {
    const KernelsModel::Row* row = model.at(i);
    if (row->verdict != Verdict::kYes) continue;
    tensor_core += row->time_ns;
    tf32 = tf32 || row->precision == "TF32";
    EXPECT_FALSE(row->rule.isEmpty()) << row->name.toStdString();
  }
  EXPECT_EQ(tensor_core, run->summary.tensor_cores.time_ns);
  EXPECT_TRUE(tf32);
}

}  // namespace
}  // namespace ampscope::gui

namespace ampscope::gui {
namespace {

TEST(KernelsModelTest, MeasuredColumnSitsBesideTheVerdictBlankWhereNotMeasured) {
  const analyzer::RunAnalysis run = test::gpuLayersRunWithCounters();
  KernelsModel model;
  QAbstractItemModelTester tester(&model, kFatal);
  model.setRun(&run);
  EXPECT_TRUE(model.hasCounters());
  EXPECT_EQ(KernelsModel::kMeasuredActive, KernelsModel::kVerdict + 1);
  EXPECT_EQ(model.headerData(KernelsModel::kMeasuredActive, Qt::Horizontal).toString(), "Tensor pipe active (measured)");
  const auto cell = [&](const char* name, int role = Qt::DisplayRole) {
    return model.index(model.rowOfKernel(QString::fromUtf8(name)), KernelsModel::kMeasuredActive).data(role);
  };
  EXPECT_EQ(cell(test::kTensorCoreGemm).toString(), "72.0%");
  EXPECT_EQ(cell(test::kSimtGemm).toString(), "0.0%");  // measured idle: a figure, not a blank
  EXPECT_EQ(cell(test::kRelu).toString(), "");           // not measured
  EXPECT_TRUE(cell(test::kRelu, Qt::ToolTipRole).toString().contains("not measured"));
  EXPECT_TRUE(cell(test::kTensorCoreGemm, Qt::ToolTipRole).toString().contains("72.0%"));
  // Sorted as numbers, the unmeasured below a measured 0%.
  EXPECT_LT(cell(test::kRelu, KernelsModel::kSortRole).toDouble(), cell(test::kSimtGemm, KernelsModel::kSortRole).toDouble());
  // The name's measurement stays with it when a layer filters the rows.
  model.setLayerFilter("embed", trace::Phase::kForward);
  EXPECT_EQ(cell(test::kTensorCoreGemm).toString(), "72.0%");
}

TEST(KernelsModelTest, WithoutCountersTheMeasuredColumnIsBlank) {
  const analyzer::RunAnalysis run = test::gpuLayersRun();
  KernelsModel model;
  model.setRun(&run);
  EXPECT_FALSE(model.hasCounters());
  for (int row = 0; row < model.rowCount(); ++row) {
    EXPECT_EQ(model.index(row, KernelsModel::kMeasuredActive).data().toString(), "");
  }
}

}  // namespace
}  // namespace ampscope::gui
