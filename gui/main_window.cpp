#include "gui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "gui/run_loader.h"
#include "gui/tabs/compare_tab.h"
#include "gui/tabs/kernels_tab.h"
#include "gui/tabs/layers_tab.h"
#include "gui/tabs/memory_tab.h"
#include "gui/tabs/numerics_tab.h"
#include "gui/tabs/ranks_tab.h"
#include "gui/tabs/recommendations_tab.h"
#include "gui/tabs/roofline_tab.h"
#include "gui/tabs/summary_tab.h"
#include "gui/tabs/timeline_tab.h"

namespace ampscope::gui {

namespace {

constexpr int kRecentFiles = 8;
const char* const kRecentKey = "recentFiles";
const char* const kTraceFilter =
    "Traces (*.json *.json.gz *.gz *.sqlite *.sqlite3 *.db *.nvvp *.nsys-rep.sqlite);;All files (*)";

// What a job is called in the title: its one file (of several processes), else its ranks' folder.
QString jobName(const analyzer::JobAnalysis& job) {
  if (job.rank_results.empty()) return QStringLiteral("job");
  const std::string& first = job.rank_results.front().file;
  const QFileInfo info(QString::fromStdString(first));
  bool one_file = true;
  bool one_folder = true;
  for (const analyzer::RankResult& rank : job.rank_results) {
    one_file = one_file && rank.file == first;
    one_folder = one_folder && QFileInfo(QString::fromStdString(rank.file)).absolutePath() == info.absolutePath();
  }
  return one_file ? info.fileName() : one_folder ? info.absoluteDir().dirName() : QStringLiteral("job");
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("ampscope");
  setAcceptDrops(true);
  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  setCentralWidget(tabs_);

  layers_ = new LayersTab;
  recommendations_ = new RecommendationsTab;
  compare_ = new CompareTab;
  addTab(new SummaryTab, "Summary");
  addTab(layers_, "Layers");
  addTab(new KernelsTab, "Kernels");
  addTab(new RooflineTab, "Roofline");
  addTab(new TimelineTab, "Timeline");
  addTab(new NumericsTab, "AMP numerics");
  addTab(new MemoryTab, "Memory");
  addTab(recommendations_, "Recommendations");
  addTab(compare_, "Compare");
  connect(compare_, &CompareTab::requestComparisonFile, this, &MainWindow::chooseComparison);
  // Not a view of one run: it shows the job, and its ranks open as the run of the tabs above.
  ranks_ = new RanksTab;
  tabs_->addTab(ranks_, "Ranks");
  connect(ranks_, &RanksTab::rankActivated, this, &MainWindow::openRank);

  loader_ = new RunLoader(this);
  connect(loader_, &RunLoader::progress, this, [this](double fraction) {
    progress_->setRange(0, fraction < 0 ? 0 : 1000);  // 0..0: a busy indicator
    if (fraction >= 0) progress_->setValue(static_cast<int>(fraction * 1000));
  });
  // Only what the user opened goes to the recent files, not the ranks picked in a job after it.
  const auto rememberOpened = [this] {
    if (opening_.size() == 1) rememberRecent(opening_.front());
    opening_.clear();
  };
  connect(loader_, &RunLoader::loaded, this, [this, rememberOpened](RunPtr run) {
    setLoading(false);
    rememberOpened();
    showRun(std::move(run));
  });
  connect(loader_, &RunLoader::jobLoaded, this, [this, rememberOpened](JobPtr job) {
    rememberOpened();
    showJob(std::move(job));
  });
  connect(loader_, &RunLoader::rankLoaded, this, [this](std::int32_t rank, RunPtr run) {
    setLoading(false);
    showRank(rank, std::move(run));
  });
  connect(loader_, &RunLoader::failed, this, &MainWindow::onLoadFailed);
  comparison_loader_ = new RunLoader(this);
  const auto compareWith = [this](RunPtr other) {
    setLoading(false);
    showComparison(std::move(other));
  };
  connect(comparison_loader_, &RunLoader::loaded, this, compareWith);
  // A job given to compare with is compared by the rank it opens with.
  connect(comparison_loader_, &RunLoader::rankLoaded, this,
          [compareWith](std::int32_t, RunPtr other) { compareWith(std::move(other)); });
  connect(comparison_loader_, &RunLoader::failed, this, &MainWindow::onLoadFailed);

  progress_ = new QProgressBar;
  progress_->setMaximumWidth(240);
  progress_->setTextVisible(false);
  cancel_ = new QPushButton("Cancel");
  cancel_->setObjectName("cancelLoad");
  status_ = new QLabel("Open a trace: File > Open, or drop it here");
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    loader_->cancel();
    comparison_loader_->cancel();
    setLoading(false);
    status_->setText("Loading cancelled");
  });
  setLoading(false);
  buildMenus();
  resize(1400, 900);
}

QStringList MainWindow::tabNames() {
  return {"summary", "layers", "kernels", "roofline", "timeline", "numerics", "memory", "recommendations", "compare", "ranks"};
}

bool MainWindow::selectTab(const QString& name) {
  const qsizetype index = tabNames().indexOf(name.toLower());
  if (index < 0) return false;
  tabs_->setCurrentIndex(static_cast<int>(index));
  return true;
}

void MainWindow::addTab(RunView* view, const QString& title) {
  views_.push_back(view);
  tabs_->addTab(view, title);
  connect(view, &RunView::layerSelected, this, [this](const QString& layer) {
    tabs_->setCurrentWidget(layers_);
    layers_->selectLayer(layer);
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::chooseAndOpen);
  file->addAction("Open &folder of ranks…", this, &MainWindow::chooseJobFolder);
  recent_menu_ = file->addMenu("Open &Recent");
  refreshRecentMenu();
  file->addAction("&Compare with…", this, &MainWindow::chooseComparison);
  file->addSeparator();
  file->addAction("Export &CSV…", this, &MainWindow::exportCsv);
  file->addAction("Export &report…", this, &MainWindow::exportReport);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::quit);
}

void MainWindow::openPaths(const QStringList& paths) {
  if (paths.isEmpty()) return;
  opening_ = paths;
  const QString first = QFileInfo(paths.front()).fileName();
  const QString what = paths.size() == 1 ? first : QStringLiteral("%1 and %2 more").arg(first).arg(paths.size() - 1);
  setLoading(true, "Loading " + what + "…");
  loader_->load(paths);
}

void MainWindow::openRank(std::int32_t rank) {
  if (!job_ || (shown_rank_ == rank && !loader_->busy())) return;
  opening_.clear();
  setLoading(true, QStringLiteral("Loading rank %1…").arg(rank));
  loader_->loadRank(job_, rank);
}

void MainWindow::showRun(RunPtr run) {
  job_.reset();
  shown_rank_.reset();
  ranks_->showJob(nullptr);
  setRun(run, run ? QFileInfo(QString::fromStdString(run->path)).fileName() : QString());
}

void MainWindow::showJob(JobPtr job) {
  job_ = std::move(job);
  shown_rank_.reset();
  ranks_->showJob(job_);
  // The run of another trace must not pass for one of this job's ranks while its rank loads.
  setRun(nullptr, {});
  if (job_) {
    setWindowTitle("ampscope — " + jobName(*job_));
    tabs_->setCurrentWidget(ranks_);
  }
}

void MainWindow::showRank(std::int32_t rank, RunPtr run) {
  shown_rank_ = rank;
  ranks_->setOpenRank(rank);
  setRun(std::move(run), QStringLiteral("%1 · rank %2").arg(job_ ? jobName(*job_) : QStringLiteral("job")).arg(rank));
}

void MainWindow::setRun(RunPtr run, const QString& title) {
  run_ = run;
  for (RunView* view : views_) view->showRun(run);
  if (run) {
    setWindowTitle("ampscope — " + title);
    status_->setText(QString::fromStdString(run->path));
  }
}

void MainWindow::showComparison(RunPtr other) {
  compare_->showComparison(std::move(other));
  tabs_->setCurrentWidget(compare_);
}

void MainWindow::setAnalysisOptions(const analyzer::AnalysisOptions& options) {
  loader_->setOptions(options);
  comparison_loader_->setOptions(options);
}

const analyzer::AnalysisOptions& MainWindow::analysisOptions() const { return loader_->options(); }

bool MainWindow::loading() const { return loader_->busy() || comparison_loader_->busy(); }

void MainWindow::setLoading(bool on, const QString& what) {
  progress_->setVisible(on);
  cancel_->setVisible(on);
  progress_->setRange(0, 0);
  if (on) status_->setText(what);
}

void MainWindow::onLoadFailed(const QString& message) {
  setLoading(false);
  status_->setText("Could not open the file");
  // The analyzer's message names the file and the place; the window stays as it was. Opened
  // window-modal without blocking, so loading and tests go on around it.
  auto* box = new QMessageBox(QMessageBox::Critical, "ampscope: cannot open the trace", message, QMessageBox::Ok, this);
  box->setObjectName("loadError");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::chooseAndOpen() {
  // Several files chosen together are one job's ranks.
  const QStringList paths = QFileDialog::getOpenFileNames(this, "Open a trace, or a job's traces", {}, kTraceFilter);
  if (!paths.isEmpty()) openPaths(paths);
}

void MainWindow::chooseJobFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Open a folder of a job's rank traces");
  if (!dir.isEmpty()) openPaths({dir});
}

void MainWindow::chooseComparison() {
  if (!run_) {
    QMessageBox::information(this, "ampscope", "Open the first run before a run to compare it with.");
    return;
  }
  const QString path = QFileDialog::getOpenFileName(this, "Open the run to compare with", {}, kTraceFilter);
  if (path.isEmpty()) return;
  setLoading(true, "Loading " + QFileInfo(path).fileName() + " to compare…");
  comparison_loader_->load(path);
}

void MainWindow::exportCsv() {
  if (!run_) return;
  const QString path = QFileDialog::getSaveFileName(this, "Export recommendations", "recommendations.csv", "CSV (*.csv)");
  if (path.isEmpty()) return;
  if (!recommendations_->exportCsv(path)) {
    QMessageBox::warning(this, "ampscope: export failed", recommendations_->lastError());
  } else {
    status_->setText("Recommendations written to " + path);
  }
}

void MainWindow::exportReport() {
  if (!run_) return;
  const QString dir = QFileDialog::getExistingDirectory(this, "Export the report into a folder");
  if (dir.isEmpty()) return;
  if (!recommendations_->exportReport(dir)) {
    QMessageBox::warning(this, "ampscope: export failed", recommendations_->lastError());
  } else {
    status_->setText("Report written to " + dir + "/report.html");
  }
}

void MainWindow::rememberRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(kRecentKey).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kRecentFiles) recent.removeLast();
  settings.setValue(kRecentKey, recent);
  refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value(kRecentKey).toStringList();
  for (const QString& path : recent) {
    recent_menu_->addAction(path, this, [this, path] { openFile(path); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  // Several files (or a folder) dropped together are one job's ranks.
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths << url.toLocalFile();
  }
  openPaths(paths);
}

}  // namespace ampscope::gui
