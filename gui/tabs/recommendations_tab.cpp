#include "gui/tabs/recommendations_tab.h"

#include <filesystem>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_table_model.h"
#include "reports/csv_reports.h"
#include "reports/html_report.h"
#include "reports/report_file.h"
#include "reports/report_writer.h"

namespace ampscope::gui {

namespace {

std::filesystem::path toPath(const QString& path) { return std::filesystem::path(path.toStdString()); }

}  // namespace

RecommendationsTab::RecommendationsTab(QWidget* parent) : RunView(parent) {
  model_ = new RecommendationsTableModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(RecommendationsTableModel::kSortRole);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(10);

  auto* top = new QHBoxLayout;
  heading_ = makeHeading({}, this);
  heading_->setObjectName("recommendationsHeading");
  export_csv_ = new QPushButton("Export CSV…", this);
  export_csv_->setObjectName("exportCsvButton");
  export_csv_->setToolTip("Write recommendations.csv, the same file `ampscope report` writes");
  export_report_ = new QPushButton("Export report…", this);
  export_report_->setObjectName("exportReportButton");
  export_report_->setToolTip("Write report.html with the CSV, JSON and Markdown reports into a folder");
  top->addWidget(heading_, 1);
  top->addWidget(export_csv_);
  top->addWidget(export_report_);
  layout->addLayout(top);

  table_ = new QTableView(this);
  table_->setObjectName("recommendationsTable");
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RecommendationsTableModel::kGain, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);

  detail_ = new QTextBrowser(this);
  detail_->setObjectName("recommendationDetail");
  detail_->setOpenLinks(false);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(detail_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);

  status_ = makeNote({}, "exportStatus", this);
  layout->addWidget(status_);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RecommendationsTab::showSelected);
  connect(export_csv_, &QPushButton::clicked, this, &RecommendationsTab::chooseCsvFile);
  connect(export_report_, &QPushButton::clicked, this, &RecommendationsTab::chooseReportFolder);
  showRun(nullptr);
}

void RecommendationsTab::showRun(RunPtr run) {
  run_ = std::move(run);
  model_->setRecommendations(run_ ? run_->recommendations : std::vector<analyzer::Recommendation>{});
  export_csv_->setEnabled(run_ != nullptr);
  export_report_->setEnabled(run_ != nullptr);
  status_->clear();
  if (!run_) {
    heading_->setText("No run loaded");
    detail_->setHtml("<p style='color:#7b8794'>Open a trace to see what to change and how much it should help.</p>");
    return;
  }
  heading_->setText(QStringLiteral("%1 recommendation%2, largest estimated gain first")
                        .arg(run_->recommendations.size())
                        .arg(run_->recommendations.size() == 1 ? "" : "s"));
  // One run's findings name no ranks: the column is for a job's.
  table_->setColumnHidden(RecommendationsTableModel::kRanks, !model_->namesRanks());
  // Evidence and action are long sentences: fitColumns caps them, the pane below has them whole.
  fitColumns(table_);
  if (run_->recommendations.empty()) {
    detail_->setHtml("<p style='color:#7b8794'>No rule fired on this trace.</p>");
    return;
  }
  // Show the most valuable one at once without announcing a layer selection.
  const QSignalBlocker quiet(this);
  table_->setCurrentIndex(sorted_->index(0, 0));
}

void RecommendationsTab::showSelected() {
  const QModelIndex current = sorted_->mapToSource(table_->currentIndex());
  const analyzer::Recommendation* r = model_->at(current.row());
  if (!r || !run_) return;
  detail_->setHtml(recommendationDetailHtml(*r));
  const QString layer = layerOfRecommendation(run_->summary, *r);
  if (!layer.isEmpty()) emit layerSelected(layer);
}

bool RecommendationsTab::exportCsv(const QString& path) {
  if (!run_) return finishExport(false, {}, "No run loaded: nothing to export");
  const QFileInfo info(path);
  const QString file = info.isDir() ? QDir(path).filePath("recommendations.csv") : path;
  const QFileInfo target(file);
  const trace::Status written = reports::writeReportFile(toPath(target.absolutePath()), target.fileName().toStdString(),
                                                         reports::recommendationsCsv(run_->recommendations));
  return finishExport(written.ok(), "Wrote " + target.absoluteFilePath(), toQString(written.error().message));
}

bool RecommendationsTab::exportReport(const QString& dir) {
  if (!run_) return finishExport(false, {}, "No run loaded: nothing to export");
  if (dir.endsWith(".html", Qt::CaseInsensitive)) {
    const QFileInfo page(dir);
    const trace::Status written =
        reports::writeReportFile(toPath(page.absolutePath()), page.fileName().toStdString(),
                                 reports::htmlReport(run_->summary, run_->recommendations));
    return finishExport(written.ok(), "Wrote " + page.absoluteFilePath(), toQString(written.error().message));
  }
  const trace::Status written = reports::writeReport(run_->summary, run_->recommendations, toPath(dir));
  return finishExport(written.ok(), "Wrote the report into " + QDir(dir).absolutePath() + " (open report.html)",
                      toQString(written.error().message));
}

bool RecommendationsTab::finishExport(bool ok, const QString& done, const QString& error) {
  last_error_ = ok ? QString() : error;
  status_->setStyleSheet(ok ? "color: #2f8132;" : "color: #b42318;");
  status_->setText(ok ? done : "Export failed: " + error);
  return ok;
}

void RecommendationsTab::chooseCsvFile() {
  const QString path = QFileDialog::getSaveFileName(this, "Export recommendations", "recommendations.csv", "CSV (*.csv)");
  if (!path.isEmpty()) exportCsv(path);
}

void RecommendationsTab::chooseReportFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Export the report into a folder");
  if (!dir.isEmpty()) exportReport(dir);
}

}  // namespace ampscope::gui
