#include "gui/tabs/layers_tab.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/models/kernels_model.h"
#include "gui/models/layers_model.h"
#include "gui/models/table_filter_proxy.h"
#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_table_model.h"
#include "reports/report_file.h"

namespace ampscope::gui {

namespace {

QTableView* makeTableView(QAbstractItemModel* model, const QString& object_name, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName(object_name);
  view->setModel(model);
  view->setSortingEnabled(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setWordWrap(false);
  view->verticalHeader()->setVisible(false);
  view->horizontalHeader()->setStretchLastSection(true);
  return view;
}

// One swatch of the legend, coloured as the table colours that state.
QLabel* legendSwatch(LayersModel::State state, QWidget* parent) {
  auto* swatch = new QLabel(LayersModel::stateName(state), parent);
  swatch->setObjectName(QStringLiteral("legendState%1").arg(static_cast<int>(state)));
  swatch->setStyleSheet(QStringLiteral("background: %1; color: %2; padding: 2px 8px; border-radius: 3px;")
                            .arg(LayersModel::stateBackground(state).name(), LayersModel::stateForeground(state).name()));
  return swatch;
}

// Shape checks name their target "layer (op)"; other rules name the layer alone.
bool targetsLayer(const std::string& target, const QString& layer) {
  const QString t = toQString(target);
  return t == layer || t.startsWith(layer + " (");
}

}  // namespace

LayersTab::LayersTab(QWidget* parent) : RunView(parent) {
  model_ = new LayersModel(this);
  proxy_ = new TableFilterProxy(LayersModel::kSortRole, this);
  proxy_->setSourceModel(model_);
  proxy_->setTextColumns({LayersModel::kLayer, LayersModel::kOp, LayersModel::kPass, LayersModel::kPrecision});
  kernels_ = new KernelsModel(this);
  kernels_proxy_ = new TableFilterProxy(KernelsModel::kSortRole, this);
  kernels_proxy_->setSourceModel(kernels_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(8);

  auto* top = new QHBoxLayout;
  heading_ = makeHeading({}, this);
  heading_->setObjectName("layersHeading");
  filter_ = new QLineEdit(this);
  filter_->setObjectName("layersFilter");
  filter_->setPlaceholderText("Filter by layer, op, pass or precision");
  filter_->setClearButtonEnabled(true);
  filter_->setMaximumWidth(320);
  top->addWidget(heading_, 1);
  top->addWidget(filter_);
  layout->addLayout(top);

  auto* legend = new QHBoxLayout;
  legend->setSpacing(6);
  legend->addWidget(new QLabel("Colour:", this));
  for (const auto state : {LayersModel::State::kEligibleNotTensorCore, LayersModel::State::kMisaligned,
                           LayersModel::State::kFine, LayersModel::State::kHost}) {
    legend->addWidget(legendSwatch(state, this));
  }
  legend->addStretch(1);
  layout->addLayout(legend);
  note_ = makeNote({}, "layersNote", this);
  layout->addWidget(note_);

  table_ = makeTableView(proxy_, "layersTable", this);
  table_->sortByColumn(LayersModel::kTime, Qt::DescendingOrder);

  auto* detail = new QWidget(this);
  auto* detail_layout = new QVBoxLayout(detail);
  detail_layout->setContentsMargins(0, 6, 0, 0);
  detail_heading_ = makeHeading({}, detail);
  detail_heading_->setObjectName("layerDetailHeading");
  detail_layout->addWidget(detail_heading_);
  kernel_table_ = makeTableView(kernels_proxy_, "layerKernelsTable", detail);
  kernel_table_->sortByColumn(KernelsModel::kTime, Qt::DescendingOrder);
  kernel_table_->setColumnHidden(KernelsModel::kLayer, true);  // it is the selected layer
  recommendations_ = new QTextBrowser(detail);
  recommendations_->setObjectName("layerRecommendations");
  recommendations_->setOpenLinks(false);
  auto* detail_split = new QSplitter(Qt::Horizontal, detail);
  detail_split->addWidget(kernel_table_);
  detail_split->addWidget(recommendations_);
  detail_split->setStretchFactor(0, 3);
  detail_split->setStretchFactor(1, 2);
  detail_layout->addWidget(detail_split, 1);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(detail);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);

  connect(filter_, &QLineEdit::textChanged, proxy_, &TableFilterProxy::setTextFilter);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &LayersTab::showSelected);
  showRun(nullptr);
}

void LayersTab::showRun(RunPtr run) {
  run_ = std::move(run);
  model_->setRun(run_.get());
  kernels_->setRun(run_.get());
  filter_->clear();
  const bool on_cpu = model_->recordedOnCpu();
  for (auto* swatch : findChildren<QLabel*>(QStringLiteral("legendState%1").arg(static_cast<int>(LayersModel::State::kHost)))) {
    swatch->setVisible(on_cpu);
  }
  if (!run_) {
    heading_->setText("No run loaded");
    note_->setText("Open a trace to see its layers: time, Tensor Core use and shapes per layer and pass.");
  } else {
    const QString what = model_->groupsOperators() ? "top-level operators" : "layers";
    heading_->setText(QStringLiteral("%1 rows: %2 by pass").arg(model_->rowCount()).arg(what));
    QStringList notes;
    if (model_->groupsOperators()) {
      notes << "This trace names no layers (no module hierarchy or layer ranges): rows are top-level operators.";
    }
    if (on_cpu) notes << QStringLiteral("Recorded on %1.").arg(reports::kCpuRunNote);
    if (model_->hasWhatIf()) {
      notes << QStringLiteral("The %1 columns are the what-if projection's model estimates per step on that GPU (%2), "
                              "GPU work only: not measurements.")
                   .arg(model_->whatIfDevice(), toQString(run_->summary.what_if.device.reason));
    }
    if (model_->rowCount() == 0) notes << "No kernel of this trace is attributed to an operator.";
    note_->setText(notes.join(' '));
  }
  note_->setVisible(!note_->text().isEmpty());
  // A CPU run's host ops have no Tensor Core figures, GPU rate or AMP prediction (the note says so,
  // and the what-if columns estimate them); without a what-if projection its columns would be empty.
  for (const int column : {LayersModel::kTensorCoreTime, LayersModel::kTensorCoreShare, LayersModel::kAchieved,
                           LayersModel::kPeak, LayersModel::kBound, LayersModel::kPredictedAmp}) {
    table_->setColumnHidden(column, on_cpu);
  }
  for (const int column : {LayersModel::kWhatIfFp32, LayersModel::kWhatIfAmp}) {
    table_->setColumnHidden(column, !model_->hasWhatIf());
  }
  // The tensor pipe's measured share only where the trace recorded hardware counters.
  table_->setColumnHidden(LayersModel::kMeasuredActive, !model_->hasCounters());
  kernel_table_->setColumnHidden(KernelsModel::kMeasuredActive, !kernels_->hasCounters());
  table_->resizeColumnsToContents();
  // Operator names of traces without layers run long: the tooltip has them whole.
  table_->setColumnWidth(LayersModel::kLayer, std::min(table_->columnWidth(LayersModel::kLayer), 300));
  table_->setColumnWidth(LayersModel::kOp, std::min(table_->columnWidth(LayersModel::kOp), 200));
  table_->setColumnWidth(LayersModel::kShapes, 260);
  // The heaviest row at once, so the detail is never blank while the run has layers.
  if (proxy_->rowCount() > 0) {
    table_->setCurrentIndex(proxy_->index(0, 0));
  } else {
    showSelected();
  }
}

QString LayersTab::selectedLayer() const {
  return table_->currentIndex().isValid() ? table_->currentIndex().data(LayersModel::kLayerRole).toString() : QString();
}

bool LayersTab::selectLayer(const QString& layer) {
  const int row = model_->rowOfLayer(layer);
  if (row < 0) return false;
  QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
  if (!index.isValid()) {  // hidden by the filter: the user asked for this layer, show it
    filter_->clear();
    index = proxy_->mapFromSource(model_->index(row, 0));
  }
  table_->setCurrentIndex(index);
  table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
  return true;
}

void LayersTab::showSelected() {
  const LayersModel::Row* row = model_->at(proxy_->mapToSource(table_->currentIndex()).row());
  if (!row) {
    kernel_table_->hide();  // not the run's kernels: the Kernels tab has those
    detail_heading_->setText(run_ ? "Select a row to see its kernels and recommendations" : QString());
    recommendations_->clear();
    return;
  }
  kernels_->setLayerFilter(row->layer, row->analysis.pass);
  kernel_table_->show();
  detail_heading_->setText(QStringLiteral("%1, %2: %3 kernel%4 in %5, %6")
                               .arg(row->layer, row->pass)
                               .arg(kernels_->rowCount())
                               .arg(kernels_->rowCount() == 1 ? "" : "s")
                               .arg(durationText(row->analysis.time_ns), LayersModel::stateName(row->analysis.state)));
  kernel_table_->resizeColumnsToContents();
  kernel_table_->setColumnWidth(KernelsModel::kKernel, 360);
  recommendations_->setHtml(recommendationsHtml(row->layer));
}

QString LayersTab::recommendationsHtml(const QString& layer) const {
  QString html;
  if (run_) {
    for (const analyzer::Recommendation& r : run_->recommendations) {
      if (targetsLayer(r.target, layer)) html += recommendationDetailHtml(r) + "<hr>";
    }
  }
  if (html.isEmpty()) {
    return QStringLiteral("<p style='color:#7b8794'>No recommendation is about %1.</p>").arg(layer.toHtmlEscaped());
  }
  return html;
}

}  // namespace ampscope::gui
