// The Recommendations tab lists every recommendation, shows the selected one in full, announces a
// layer target, and exports the same recommendations.csv and report as `ampscope report`.

#include <filesystem>

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_tab.h"
#include "gui/tabs/recommendations_table_model.h"
#include "reports/csv_reports.h"
#include "reports/html_report.h"
#include "reports/report_writer.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using ampscope::test::readFile;
using ampscope::test::ScratchDir;
using test::app;
using test::child;

QString qpath(const std::string& path) { return QString::fromStdString(path); }

// A recommendation about a layer, made for the test: the synthetic run's rules may not name one.
analyzer::Recommendation aboutLayer(const std::string& target, std::vector<std::string> layers = {}) {
  analyzer::Recommendation r;
  r.rule = "pad-dimensions";
  r.severity = analyzer::Severity::kMedium;
  r.target = target;
  r.evidence = "10 is not a multiple of 8 and is a GEMM dimension of 1 op call shape: fc2 linear as N";
  r.action = "Pad 10 to 16";
  r.layers = std::move(layers);
  r.estimated_gain_ns = 250'000;
  r.estimated_gain_pct = 2.5;
  return r;
}

// The trainer's run with one extra recommendation about a layer, largest gain last.
RunPtr runWithLayerRecommendation(const std::string& target, std::vector<std::string> layers = {}) {
  auto run = std::make_shared<analyzer::RunAnalysis>(*test::trainerRun());
  analyzer::Recommendation r = aboutLayer(target, std::move(layers));
  r.estimated_gain_ns = 0;
  run->recommendations.push_back(r);
  return run;
}

TEST(RecommendationsTableModelTest, PassesTheModelTesterAndShowsEveryRecommendationWithUnits) {
  app();
  RecommendationsTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  const RunPtr run = test::trainerRun();
  model.setRecommendations(run->recommendations);
  ASSERT_EQ(model.rowCount(), static_cast<int>(run->recommendations.size()));
  model.setRecommendations({aboutLayer("fc2 (linear)")});
  ASSERT_EQ(model.rowCount(), 1);
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kSeverity)).toString(), "medium");
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kGain)).toString(), "250.0 us");
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kGainShare)).toString(), "2.5%");
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kGain), RecommendationsTableModel::kSortRole).toLongLong(),
            250'000);
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kTarget)).toString(), "fc2 (linear)");
}

// A job's finding names the ranks it applies to; one run's name none, and its tab hides the column.
TEST(RecommendationsTableModelTest, AJobsFindingShowsItsRanksAndOneRunsNone) {
  app();
  RecommendationsTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  analyzer::Recommendation merged = aboutLayer("model");
  merged.ranks = {0, 1, 2, 3, 5};
  model.setRecommendations({merged, aboutLayer("fc2 (linear)")});
  ASSERT_EQ(model.columnCount(), RecommendationsTableModel::kColumnCount);
  EXPECT_EQ(model.headerData(RecommendationsTableModel::kRanks, Qt::Horizontal).toString(), "Ranks");
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kRanks)).toString(), "ranks 0–3, 5");
  EXPECT_EQ(model.data(model.index(0, RecommendationsTableModel::kRanks), RecommendationsTableModel::kSortRole).toInt(), 5);
  EXPECT_EQ(model.data(model.index(1, RecommendationsTableModel::kRanks)).toString(), "");
  EXPECT_TRUE(model.namesRanks());
  EXPECT_TRUE(recommendationDetailHtml(merged).contains("ranks 0–3, 5"));

  RecommendationsTab tab;
  tab.showRun(test::trainerRun());
  EXPECT_TRUE(child<QTableView>(tab, "recommendationsTable")->isColumnHidden(RecommendationsTableModel::kRanks));
}

TEST(RecommendationsTabTest, ListsEveryRecommendationLargestGainFirst) {
  app();
  RecommendationsTab tab;
  const RunPtr run = test::trainerRun();
  ASSERT_FALSE(run->recommendations.empty());
  tab.showRun(run);
  const auto* table = child<QTableView>(tab, "recommendationsTable");
  ASSERT_NE(table, nullptr);
  QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  ASSERT_EQ(table->model()->rowCount(), static_cast<int>(run->recommendations.size()));
  for (int row = 0; row < table->model()->rowCount(); ++row) {
    EXPECT_EQ(table->model()->index(row, RecommendationsTableModel::kRule).data().toString().toStdString(),
              run->recommendations[static_cast<std::size_t>(row)].rule);
  }
  // The first is selected and shown in full.
  const auto* detail = child<QTextBrowser>(tab, "recommendationDetail");
  EXPECT_TRUE(detail->toPlainText().contains(toQString(run->recommendations.front().action)));
}

TEST(RecommendationsTabTest, SelectingARecommendationShowsItsFullEvidenceAndAction) {
  app();
  RecommendationsTab tab;
  const RunPtr run = runWithLayerRecommendation("model");
  tab.showRun(run);
  auto* table = child<QTableView>(tab, "recommendationsTable");
  const int last = table->model()->rowCount() - 1;
  table->setCurrentIndex(table->model()->index(last, 0));
  const QString shown = child<QTextBrowser>(tab, "recommendationDetail")->toPlainText();
  EXPECT_TRUE(shown.contains("10 is not a multiple of 8")) << shown.toStdString();
  EXPECT_TRUE(shown.contains("Pad 10 to 16"));
}

TEST(RecommendationsTabTest, SelectingARecommendationAboutALayerSelectsThatLayer) {
  app();
  RecommendationsTab tab;
  // The analysis names the layers a finding is about; the view selects the first.
  tab.showRun(runWithLayerRecommendation("size 10", {"fc2"}));
  QSignalSpy selected(&tab, &RunView::layerSelected);
  auto* table = child<QTableView>(tab, "recommendationsTable");
  table->setCurrentIndex(table->model()->index(table->model()->rowCount() - 1, 0));
  ASSERT_EQ(selected.count(), 1);
  EXPECT_EQ(selected.front().front().toString(), "fc2");
}

TEST(RecommendationsTabTest, ARecommendationAboutTheModelSelectsNoLayer) {
  app();
  RecommendationsTab tab;
  tab.showRun(runWithLayerRecommendation("data loader"));
  QSignalSpy selected(&tab, &RunView::layerSelected);
  auto* table = child<QTableView>(tab, "recommendationsTable");
  table->setCurrentIndex(table->model()->index(table->model()->rowCount() - 1, 0));
  EXPECT_EQ(selected.count(), 0);
}

class RecommendationsExportTest : public ::testing::TestWithParam<bool> {
 protected:
  // The trainer's run, or a real GPU trace's (skipped without the shared traces).
  RunPtr run() const { return GetParam() ? test::sharedRun(test::kResnetWorkers0) : test::trainerRun(); }
};

TEST_P(RecommendationsExportTest, ExportCsvWritesTheSameFileAsAmpscopeReport) {
  app();
  const RunPtr shown = run();
  if (!shown) GTEST_SKIP() << "shared traces not found under " << AMPSCOPE_SHARED_TRACES;
  ScratchDir dir;
  RecommendationsTab tab;
  tab.showRun(shown);
  ASSERT_TRUE(tab.exportCsv(qpath(dir.file("mine.csv")))) << tab.lastError().toStdString();
  const std::filesystem::path report = dir.file("report");
  ASSERT_TRUE(reports::writeReport(shown->summary, shown->recommendations, report).ok());
  const std::string exported = readFile(dir.file("mine.csv"));
  EXPECT_FALSE(exported.empty());
  EXPECT_EQ(exported, readFile((report / "recommendations.csv").string()));
  EXPECT_TRUE(tab.lastError().isEmpty());
  EXPECT_TRUE(child<QLabel>(tab, "exportStatus")->text().contains("mine.csv"));
}

TEST_P(RecommendationsExportTest, ExportReportWritesAmpscopeReportsFilesIntoTheFolder) {
  app();
  const RunPtr shown = run();
  if (!shown) GTEST_SKIP() << "shared traces not found under " << AMPSCOPE_SHARED_TRACES;
  ScratchDir dir;
  RecommendationsTab tab;
  tab.showRun(shown);
  ASSERT_TRUE(tab.exportReport(qpath(dir.file("out")))) << tab.lastError().toStdString();
  EXPECT_EQ(readFile(dir.file("out/report.html")), reports::htmlReport(shown->summary, shown->recommendations));
  EXPECT_EQ(readFile(dir.file("out/recommendations.csv")), reports::recommendationsCsv(shown->recommendations));
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/report.json")));
}

INSTANTIATE_TEST_SUITE_P(TrainerAndSharedRuns, RecommendationsExportTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& shared) {
                           return std::string(shared.param ? "ResnetGpuTrace" : "TrainerCpuRun");
                         });

TEST(RecommendationsTabTest, ExportCsvIntoAFolderWritesRecommendationsCsvThere) {
  app();
  ScratchDir dir;
  RecommendationsTab tab;
  const RunPtr run = test::trainerRun();
  tab.showRun(run);
  ASSERT_TRUE(tab.exportCsv(qpath(dir.file(""))));
  EXPECT_EQ(readFile(dir.file("recommendations.csv")), reports::recommendationsCsv(run->recommendations));
}

TEST(RecommendationsTabTest, ExportReportToAnHtmlPathWritesThePageAlone) {
  app();
  ScratchDir dir;
  RecommendationsTab tab;
  const RunPtr run = test::trainerRun();
  tab.showRun(run);
  ASSERT_TRUE(tab.exportReport(qpath(dir.file("page.html"))));
  EXPECT_EQ(readFile(dir.file("page.html")), reports::htmlReport(run->summary, run->recommendations));
  EXPECT_FALSE(std::filesystem::exists(dir.file("recommendations.csv")));
}

TEST(RecommendationsTabTest, AFailedExportReturnsFalseWithAMessageNamingTheFile) {
  app();
  ScratchDir dir;
  RecommendationsTab tab;
  tab.showRun(test::trainerRun());
  const std::string unwritable = dir.file("missing-folder/recommendations.csv");
  EXPECT_FALSE(tab.exportCsv(qpath(unwritable)));
  EXPECT_TRUE(tab.lastError().contains(qpath(unwritable))) << tab.lastError().toStdString();
  EXPECT_TRUE(child<QLabel>(tab, "exportStatus")->text().startsWith("Export failed"));
}

TEST(RecommendationsTabTest, ExportsNothingWithoutARun) {
  app();
  ScratchDir dir;
  RecommendationsTab tab;
  tab.showRun(nullptr);
  EXPECT_FALSE(tab.exportCsv(qpath(dir.file("none.csv"))));
  EXPECT_FALSE(tab.exportReport(qpath(dir.file("none"))));
  EXPECT_TRUE(tab.lastError().contains("No run loaded"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.csv")));
}

}  // namespace
}  // namespace ampscope::gui
