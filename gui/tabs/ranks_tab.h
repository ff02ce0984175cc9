#pragma once
// The Ranks tab: a distributed job (analyzer/job/job_analysis.h) rank by rank. A stacked bar per rank
// splits its steady step into compute, exposed communication, data loading and idle; the slowest
// rank and the stragglers are named on their bars and marked in a table of every rank's figures;
// cards and a line below them say how imbalanced the ranks are, why the slowest is slow, what the
// analysis could not do and what to change. Each rank's row also says what its own analysis found
// (its Tensor Core share, AMP and TF32 projections, largest findings), and "What to change" lists
// the ranks' findings merged across ranks, with the ranks each applies to and the job's gain. Clicking a rank (its bar or its row) asks the window
// to open that rank's complete analysis in the other tabs (rankActivated). The tab shows the
// job's figures as the analyzer made them and never reads files.

#include <cstdint>
#include <optional>

#include <QString>
#include <QWidget>

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QTableView;
class QTableWidget;

namespace ampscope::gui {

class FigureCard;
class RecommendationsTableModel;

class RanksTab : public QWidget {
  Q_OBJECT

 public:
  explicit RanksTab(QWidget* parent = nullptr);

  // Shows job (nullptr: none); no rank is marked open until setOpenRank.
  void showJob(JobPtr job);
  JobPtr job() const { return job_; }
  // Marks the rank whose run the other tabs show (nullopt: none) by selecting its row.
  void setOpenRank(std::optional<std::int32_t> rank);

  // The name of row's bar and row: "rank 3 (slowest, straggler)", "rank 5 (straggler)", "rank 0".
  static QString rankLabel(const analyzer::JobAnalysis& job, const analyzer::RankRow& row);
  // The ranks table's columns, and the role of its first that holds the row's RankRow::rank.
  enum Column {
    kRank, kStep, kCompute, kExposed, kWait, kData, kIdle, kBusy, kLate, kStraggler,
    kTensorCores, kAmp, kTf32, kFindings,  // what the rank's own analysis found
    kDevice, kSource, kColumnCount
  };
  static constexpr int kRankRole = Qt::UserRole + 1;

 signals:
  // The user picked rank (a RankRow::rank) to open.
  void rankActivated(std::int32_t rank);

 private:
  void clear();
  void showCards(const analyzer::JobAnalysis& job);
  void showChart(const analyzer::JobAnalysis& job);
  void showTable(const analyzer::JobAnalysis& job);
  void showFindings(int row, const analyzer::RankFindings& findings);
  void showNotes(const analyzer::JobAnalysis& job);
  void showOpenRank();

  JobPtr job_;
  std::optional<std::int32_t> open_rank_;
  QLabel* title_ = nullptr;
  QLabel* open_hint_ = nullptr;
  QWidget* cards_ = nullptr;
  FigureCard* ranks_card_ = nullptr;
  FigureCard* slowest_card_ = nullptr;
  FigureCard* imbalance_card_ = nullptr;
  FigureCard* stragglers_card_ = nullptr;
  QLabel* why_ = nullptr;
  QLabel* notes_ = nullptr;
  QLabel* waits_ = nullptr;  // who arrived last at each series of collectives
  QChartView* chart_view_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* advice_heading_ = nullptr;
  QTableView* advice_ = nullptr;
  RecommendationsTableModel* advice_model_ = nullptr;
};

}  // namespace ampscope::gui
