// The Ranks tab over the eight ranks of the shared DLRM job (analyzer::analyzeJobFiles on
// ../shared/traces/kineto-v100-dlrm-8ranks; skipped when absent): a bar and a row per rank with
// the job's figures, the slowest rank and the stragglers marked as the JobAnalysis names them, and
// a click on a bar or a row asking for that rank.

#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include "analyzer/job/job_findings.h"
#include "analyzer/job_files.h"
#include "gui/tabs/chart_style.h"
#include "gui/tabs/ranks_tab.h"
#include "gui/tabs/recommendations_table_model.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

using test::app;
using test::child;

constexpr const char* kDlrmJob = "kineto-v100-dlrm-8ranks";

// The job, analyzed once per test binary; nullptr when the folder is absent.
JobPtr dlrmJob() {
  static const JobPtr job = []() -> JobPtr {
    const std::string folder = ampscope::test::sharedTrace(kDlrmJob);
    if (folder.empty()) return nullptr;
    auto files = analyzer::listTraceFiles({folder});
    EXPECT_TRUE(files.ok()) << (files.ok() ? std::string() : files.error().message);
    if (!files.ok()) return nullptr;
    auto analyzed = analyzer::analyzeJobFiles(*files, {});
    EXPECT_TRUE(analyzed.ok()) << (analyzed.ok() ? std::string() : analyzed.error().message);
    if (!analyzed.ok()) return nullptr;
    return std::make_shared<const analyzer::JobAnalysis>(std::move(analyzed).value());
  }();
  return job;
}

#define REQUIRE_DLRM_JOB(var)        \
  const JobPtr var = dlrmJob();      \
  if (!var) GTEST_SKIP() << "shared traces " << kDlrmJob << " not found under " << AMPSCOPE_SHARED_TRACES

QHorizontalStackedBarSeries* rankSeries(const RanksTab& tab) {
  auto* view = child<QChartView>(tab, "rankStepsChart");
  if (!view || view->chart()->series().isEmpty()) return nullptr;
  return qobject_cast<QHorizontalStackedBarSeries*>(view->chart()->series().front());
}

QStringList rankCategories(const RanksTab& tab) {
  auto* view = child<QChartView>(tab, "rankStepsChart");
  if (!view) return {};
  for (QAbstractAxis* axis : view->chart()->axes(Qt::Vertical)) {
    if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis)) return categories->categories();
  }
  return {};
}

// The table row showing rank; -1 when none does.
int rowOfRank(const QTableWidget& table, std::int32_t rank) {
  for (int row = 0; row < table.rowCount(); ++row) {
    if (table.item(row, RanksTab::kRank)->data(RanksTab::kRankRole).toInt() == rank) return row;
  }
  return -1;
}

TEST(RanksTabTest, ShowsABarPerRankSplitIntoTheJobsStepPartsRankZeroOnTop) {
  app();
  REQUIRE_DLRM_JOB(job);
  ASSERT_EQ(job->ranks.size(), 8U);
  RanksTab tab;
  tab.showJob(job);
  QHorizontalStackedBarSeries* series = rankSeries(tab);
  ASSERT_NE(series, nullptr);
  const QList<QBarSet*> sets = series->barSets();
  ASSERT_EQ(sets.size(), 4);
  const std::int64_t analyzer::RankRow::*parts[] = {&analyzer::RankRow::compute_ns,
                                                    &analyzer::RankRow::exposed_communication_ns,
                                                    &analyzer::RankRow::data_ns, &analyzer::RankRow::idle_ns};
  const char* names[] = {"compute", "exposed communication", "data loading", "idle"};
  double exposed_ms = 0.0;
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(sets[s]->label(), names[s]);
    ASSERT_EQ(sets[s]->count(), 8);
    // The chart draws its first category at the bottom: bar i is rank 7 - i.
    for (int i = 0; i < 8; ++i) {
      const analyzer::RankRow& row = job->ranks[static_cast<std::size_t>(7 - i)];
      EXPECT_DOUBLE_EQ(sets[s]->at(i), static_cast<double>(row.*parts[s]) / 1e6) << names[s] << " rank " << row.rank;
      if (s == 1) exposed_ms += sets[s]->at(i);
    }
  }
  // DLRM's ranks wait on their all-to-alls and all-reduces: the exposed part is not empty.
  EXPECT_GT(exposed_ms, 0.0);
  const QStringList categories = rankCategories(tab);
  ASSERT_EQ(categories.size(), 8);
  EXPECT_TRUE(categories.last().startsWith("rank 0")) << categories.last().toStdString();
  EXPECT_TRUE(categories.first().startsWith("rank 7")) << categories.first().toStdString();
}

TEST(RanksTabTest, MarksTheSlowestRankAndTheStragglersTheJobAnalysisNames) {
  app();
  REQUIRE_DLRM_JOB(job);
  ASSERT_TRUE(job->slowest_rank.has_value());
  const std::int32_t slowest = *job->slowest_rank;
  // The files number their ranks 0 to 7 (distributedInfo), so rank r is row r and bar 7 - r.
  for (std::size_t i = 0; i < job->ranks.size(); ++i) ASSERT_EQ(job->ranks[i].rank, static_cast<std::int32_t>(i));
  RanksTab tab;
  tab.showJob(job);

  // On the chart: its label and its bar, in every part, selected (drawn in deeper shades).
  const QStringList categories = rankCategories(tab);
  ASSERT_EQ(categories.size(), 8);
  const int slowest_bar = 7 - slowest;
  EXPECT_TRUE(categories[slowest_bar].startsWith(QStringLiteral("rank %1 (slowest").arg(slowest)))
      << categories[slowest_bar].toStdString();
  EXPECT_EQ(categories.filter("slowest").size(), 1);
  EXPECT_EQ(categories.filter("straggler").size(), static_cast<qsizetype>(job->stragglers.size()));
  for (const std::int32_t straggler : job->stragglers) {
    EXPECT_TRUE(categories[7 - straggler].contains("straggler")) << categories[7 - straggler].toStdString();
  }
  QHorizontalStackedBarSeries* series = rankSeries(tab);
  ASSERT_NE(series, nullptr);
  for (const QBarSet* set : series->barSets()) {
    EXPECT_EQ(set->selectedBars(), QList<int>{slowest_bar}) << set->label().toStdString();
  }

  // In the table: a row per rank with the job's figures, the slowest named, stragglers flagged.
  auto* table = child<QTableWidget>(tab, "ranksTable");
  ASSERT_NE(table, nullptr);
  QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  ASSERT_EQ(table->rowCount(), 8);
  const int row = rowOfRank(*table, slowest);
  ASSERT_GE(row, 0);
  EXPECT_EQ(table->item(row, RanksTab::kRank)->text(),
            RanksTab::rankLabel(*job, job->ranks[static_cast<std::size_t>(slowest)]));
  EXPECT_TRUE(table->item(row, RanksTab::kRank)->font().bold());
  for (const analyzer::RankRow& r : job->ranks) {
    const int at = rowOfRank(*table, r.rank);
    ASSERT_GE(at, 0) << r.rank;
    EXPECT_EQ(table->item(at, RanksTab::kStep)->text(), durationText(r.steady_step_ns)) << r.rank;
    EXPECT_EQ(table->item(at, RanksTab::kBusy)->text(), durationText(r.busy_ns)) << r.rank;
    EXPECT_EQ(table->item(at, RanksTab::kStraggler)->text(), r.straggler ? "yes" : "no") << r.rank;
  }

  // The figures behind it, as the analyzer wrote them.
  EXPECT_EQ(child<QLabel>(tab, "slowestRankValue")->text(), QStringLiteral("rank %1").arg(slowest));
  EXPECT_EQ(child<QLabel>(tab, "imbalanceValue")->text(), speedupText(job->imbalance));
  EXPECT_EQ(child<QLabel>(tab, "slowestWhy")->text(), QString::fromStdString(job->slowest_why));
  EXPECT_FALSE(job->slowest_why.empty());
  // Who the others waited for at each series of collectives, as the analyzer found it.
  ASSERT_FALSE(job->collective_waits.empty());
  const analyzer::CollectiveWait& first = job->collective_waits.front();
  EXPECT_TRUE(child<QLabel>(tab, "collectiveWaits")
                  ->text()
                  .startsWith(QStringLiteral("Last to arrive at the collectives: rank %1 at %2 of %3 ")
                                  .arg(first.last_rank)
                                  .arg(first.last_rank_calls)
                                  .arg(first.calls)))
      << child<QLabel>(tab, "collectiveWaits")->text().toStdString();
}

// Each rank's row says what its own analysis found; "What to change" lists the findings merged
// across ranks with the ranks each applies to, under the model tester.
TEST(RanksTabTest, EachRanksRowShowsItsOwnFindingsAndTheMergedOnesNameTheirRanks) {
  app();
  REQUIRE_DLRM_JOB(job);
  RanksTab tab;
  tab.showJob(job);
  auto* table = child<QTableWidget>(tab, "ranksTable");
  ASSERT_NE(table, nullptr);
  QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  for (std::size_t i = 0; i < job->ranks.size(); ++i) {
    const analyzer::RankFindings& f = job->rank_results[i].findings;
    const int at = rowOfRank(*table, job->ranks[i].rank);
    ASSERT_GE(at, 0);
    ASSERT_TRUE(f.tensor_core_share.has_value());
    EXPECT_EQ(table->item(at, RanksTab::kTensorCores)->text(), percentText(*f.tensor_core_share));
    // The V100 DLRM ranks name their GPU: AMP is projected on every one.
    ASSERT_TRUE(f.amp_projected_speedup.has_value()) << f.amp_note;
    EXPECT_TRUE(table->item(at, RanksTab::kAmp)->text().startsWith(speedupText(*f.amp_projected_speedup)))
        << table->item(at, RanksTab::kAmp)->text().toStdString();
    ASSERT_FALSE(f.recommendations.empty());
    EXPECT_TRUE(table->item(at, RanksTab::kFindings)->text().startsWith(toQString(f.recommendations.front().rule)))
        << table->item(at, RanksTab::kFindings)->text().toStdString();
  }
  EXPECT_EQ(table->horizontalHeaderItem(RanksTab::kAmp)->text(), "AMP projected");

  auto* advice = child<QTableView>(tab, "jobRecommendations");
  ASSERT_NE(advice, nullptr);
  QAbstractItemModelTester advice_tester(advice->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  ASSERT_EQ(advice->model()->rowCount(), static_cast<int>(job->recommendations.size()));
  EXPECT_FALSE(advice->isColumnHidden(RecommendationsTableModel::kRanks));
  bool every_rank = false;
  for (int row = 0; row < advice->model()->rowCount(); ++row) {
    const analyzer::Recommendation& r = job->recommendations[static_cast<std::size_t>(row)];
    EXPECT_EQ(advice->model()->index(row, RecommendationsTableModel::kRanks).data().toString(),
              toQString(analyzer::rankSetText(r.ranks)));
    every_rank = every_rank || r.ranks.size() == 8;
  }
  EXPECT_TRUE(every_rank);  // overlap-communication and hide-input-pipeline are found on every rank
}

TEST(RanksTabTest, ClickingARanksBarOrRowAsksToOpenThatRank) {
  app();
  REQUIRE_DLRM_JOB(job);
  RanksTab tab;
  tab.resize(1400, 1200);
  tab.showJob(job);
  tab.show();
  QApplication::processEvents();
  QSignalSpy opened(&tab, &RanksTab::rankActivated);

  // A click in the middle of rank 2's compute segment.
  auto* view = child<QChartView>(tab, "rankStepsChart");
  QHorizontalStackedBarSeries* series = rankSeries(tab);
  ASSERT_NE(series, nullptr);
  const int bar = 7 - 2;
  const QPointF value(series->barSets().front()->at(bar) / 2.0, bar);
  const QPoint at = view->mapFromScene(view->chart()->mapToScene(view->chart()->mapToPosition(value, series)));
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
  ASSERT_EQ(opened.size(), 1);
  EXPECT_EQ(opened.takeFirst().front().toInt(), 2);

  auto* table = child<QTableWidget>(tab, "ranksTable");
  table->selectRow(rowOfRank(*table, 6));
  ASSERT_EQ(opened.size(), 1);
  EXPECT_EQ(opened.takeFirst().front().toInt(), 6);

  // The window marking the rank it opened is not the user picking one.
  tab.setOpenRank(3);
  EXPECT_TRUE(opened.isEmpty());
  const QList<QTableWidgetItem*> selected = table->selectedItems();
  ASSERT_FALSE(selected.isEmpty());
  EXPECT_EQ(selected.front()->row(), rowOfRank(*table, 3));
  EXPECT_TRUE(child<QLabel>(tab, "openRankHint")->text().startsWith("Rank 3 is open"));
}

TEST(RanksTabTest, WithoutAJobSaysHowToOpenOne) {
  app();
  REQUIRE_DLRM_JOB(job);
  RanksTab tab;
  tab.showJob(job);
  tab.showJob(nullptr);
  EXPECT_EQ(child<QLabel>(tab, "jobTitle")->text(), "No job loaded");
  EXPECT_TRUE(child<QLabel>(tab, "slowestWhy")->text().contains("folder of their traces"));
  EXPECT_EQ(child<QTableWidget>(tab, "ranksTable")->rowCount(), 0);
  EXPECT_EQ(rankSeries(tab), nullptr);
}

}  // namespace
}  // namespace ampscope::gui
