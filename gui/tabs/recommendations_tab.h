#pragma once
// Every recommendation of the run in a sortable table (severity, estimated gain, rule, target,
// evidence, action), the selected one in full beside it, and the two exports: the same
// recommendations.csv and report as `ampscope report` writes, through the reports library.
// Selecting a recommendation about a layer shows that layer (layerSelected).

#include <QString>

#include "gui/run_view.h"

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace ampscope::gui {

class RecommendationsTableModel;

class RecommendationsTab : public RunView {
  Q_OBJECT

 public:
  explicit RecommendationsTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

  // Writes the run's recommendations as `ampscope report`'s recommendations.csv to path (a file;
  // a folder gets recommendations.csv inside it). False, with lastError(), when there is no run
  // or the file cannot be written.
  bool exportCsv(const QString& path);
  // Writes the report into dir as `ampscope report` does (report.html with the CSV, JSON and
  // Markdown files beside it; dir is created); a path ending in .html gets the HTML page alone.
  bool exportReport(const QString& dir);
  // Why the last export failed (names the file); empty after a successful one.
  QString lastError() const { return last_error_; }

 private:
  void chooseCsvFile();
  void chooseReportFolder();
  void showSelected();
  bool finishExport(bool ok, const QString& done, const QString& error);

  RunPtr run_;
  RecommendationsTableModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* table_ = nullptr;
  QTextBrowser* detail_ = nullptr;
  QLabel* heading_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* export_csv_ = nullptr;
  QPushButton* export_report_ = nullptr;
  QString last_error_;
};

}  // namespace ampscope::gui
