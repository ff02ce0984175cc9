#pragma once
// The ampscope window: a tab per view of the loaded run (summary, layers, kernels, timeline, AMP
// numerics, recommendations, comparison), the Ranks tab of a distributed job, whose ranks open as
// the run the other tabs show, File menu with recent files, drag and drop, and loading off the GUI
// thread with progress and cancel.

#include <cstdint>
#include <optional>

#include <QMainWindow>
#include <QStringList>

#include "analyzer/core/analysis_options.h"
#include "gui/run_view.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QMenu;

namespace ampscope::gui {

class CompareTab;
class LayersTab;
class RanksTab;
class RecommendationsTab;
class RunLoader;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Tab names, for --screenshot --tab: summary, layers, kernels, roofline, timeline, numerics, memory,
  // recommendations, compare, ranks.
  static QStringList tabNames();
  bool selectTab(const QString& name);

  // What every later analysis is told (--gpu NAME): the run and the run it is compared with.
  void setAnalysisOptions(const analyzer::AnalysisOptions& options);
  const analyzer::AnalysisOptions& analysisOptions() const;

  // Off the GUI thread: a trace, a job's folder, or its trace files. A job shows in the Ranks tab
  // and opens its slowest rank (else its lowest) in the others.
  void openFile(const QString& path) { openPaths({path}); }
  void openPaths(const QStringList& paths);
  void openRank(std::int32_t rank);         // a rank of the job shown, off the GUI thread
  void showRun(RunPtr run);                 // shows a loaded run of its own (no job) in every tab
  void showJob(JobPtr job);                 // shows a job in the Ranks tab; its runs come by showRank
  void showRank(std::int32_t rank, RunPtr run);  // the job's rank's run in every other tab
  void showComparison(RunPtr other);        // the Compare tab's second run
  RunPtr run() const { return run_; }
  JobPtr job() const { return job_; }
  std::optional<std::int32_t> shownRank() const { return shown_rank_; }  // the rank run() is, in a job
  bool loading() const;

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void addTab(RunView* view, const QString& title);
  void rememberRecent(const QString& path);
  void refreshRecentMenu();
  void chooseAndOpen();
  void chooseJobFolder();
  void setRun(RunPtr run, const QString& title);
  void chooseComparison();
  void exportCsv();
  void exportReport();
  void onLoadFailed(const QString& message);
  void setLoading(bool on, const QString& what = {});

  QTabWidget* tabs_ = nullptr;
  QList<RunView*> views_;
  LayersTab* layers_ = nullptr;
  RecommendationsTab* recommendations_ = nullptr;
  CompareTab* compare_ = nullptr;
  RanksTab* ranks_ = nullptr;
  RunLoader* loader_ = nullptr;
  RunLoader* comparison_loader_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QLabel* status_ = nullptr;
  QStringList opening_;  // what the load in progress opens (not a rank of the job shown)
  RunPtr run_;
  JobPtr job_;
  std::optional<std::int32_t> shown_rank_;
};

}  // namespace ampscope::gui
