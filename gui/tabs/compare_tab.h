#pragma once
// Two runs of one model side by side, as `ampscope diff` compares them (analyzer/advice/run_comparison.h):
// the loaded run is A (the baseline, say FP32), a second run is B (say AMP). Shows the measured
// step speedup beside what A's own analysis predicted, and the measured speedup of every layer
// (or operator, in traces without layer names) the two runs share, as a table and a bar chart.
// The tab never opens files: "Open second run…" asks the window (requestComparisonFile), which
// loads the file off the GUI thread and calls showComparison.

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace ampscope::analyzer {
struct RunComparison;
struct OperatorComparison;
}  // namespace ampscope::analyzer

namespace ampscope::gui {

class FigureCard;

class CompareTab : public RunView {
  Q_OBJECT

 public:
  // The chart shows the layers with the most time in A; the table has every common one.
  static constexpr int kChartedRows = 12;  // more rows squeeze the names into "…"

  explicit CompareTab(QWidget* parent = nullptr);
  // Run A. A second run already shown stays, compared with the new A.
  void showRun(RunPtr run) override;
  // Run B (nullptr: none).
  void showComparison(RunPtr other);

 signals:
  // The user asked to open the run to compare with.
  void requestComparisonFile();

 private:
  void refresh();
  void showMessage(const QString& text);
  void showCards(const analyzer::RunComparison& comparison);
  void showRows(const std::vector<analyzer::OperatorComparison>& rows, const QString& what, bool per_step);
  void showChart(const std::vector<analyzer::OperatorComparison>& rows, const analyzer::RunComparison& comparison,
                 const QString& what);

  RunPtr run_;
  RunPtr other_;
  QLabel* runs_ = nullptr;
  QPushButton* open_second_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QLabel* message_ = nullptr;
  FigureCard* a_step_ = nullptr;
  FigureCard* b_step_ = nullptr;
  FigureCard* measured_ = nullptr;
  FigureCard* predicted_ = nullptr;
  QTableWidget* projections_ = nullptr;
  QTableWidget* rows_ = nullptr;
  QLabel* rows_note_ = nullptr;
  QChartView* chart_view_ = nullptr;
};

}  // namespace ampscope::gui
