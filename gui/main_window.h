#pragma once
// The ampscope window: a tab per view of the loaded run (summary, layers, kernels, timeline, AMP
// numerics, recommendations, comparison), File menu with recent files, drag and drop, and loading
// off the GUI thread with progress and cancel.

#include <QMainWindow>
#include <QStringList>

#include "analyzer/analysis_options.h"
#include "gui/run_view.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QMenu;

namespace ampscope::gui {

class CompareTab;
class LayersTab;
class RecommendationsTab;
class RunLoader;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Tab names, for --screenshot --tab: summary, layers, kernels, roofline, timeline, numerics,
  // recommendations, compare.
  static QStringList tabNames();
  bool selectTab(const QString& name);

  // What every later analysis is told (--gpu NAME): the run and the run it is compared with.
  void setAnalysisOptions(const analyzer::AnalysisOptions& options);
  const analyzer::AnalysisOptions& analysisOptions() const;

  void openFile(const QString& path);       // off the GUI thread
  void showRun(RunPtr run);                 // shows a loaded run in every tab
  void showComparison(RunPtr other);        // the Compare tab's second run
  RunPtr run() const { return run_; }
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
  RunLoader* loader_ = nullptr;
  RunLoader* comparison_loader_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QLabel* status_ = nullptr;
  QString loading_path_;
  RunPtr run_;
};

}  // namespace ampscope::gui
