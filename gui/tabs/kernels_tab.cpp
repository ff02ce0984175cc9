#include "gui/tabs/kernels_tab.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/models/kernels_model.h"
#include "gui/models/table_filter_proxy.h"
#include "gui/tabs/chart_style.h"
#include "reports/verdict_words.h"

namespace ampscope::gui {

KernelsTab::KernelsTab(QWidget* parent) : RunView(parent) {
  model_ = new KernelsModel(this);
  proxy_ = new TableFilterProxy(KernelsModel::kSortRole, this);
  proxy_->setSourceModel(model_);
  proxy_->setTextColumns({KernelsModel::kKernel, KernelsModel::kLayer, KernelsModel::kPrecision, KernelsModel::kRule});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(8);

  auto* top = new QHBoxLayout;
  heading_ = makeHeading({}, this);
  heading_->setObjectName("kernelsHeading");
  verdict_ = new QComboBox(this);
  verdict_->setObjectName("verdictFilter");
  verdict_->addItem("All kernels");
  for (const auto verdict : {KernelsModel::Verdict::kYes, KernelsModel::Verdict::kNo, KernelsModel::Verdict::kUnknown,
                             KernelsModel::Verdict::kHost}) {
    verdict_->addItem(QStringLiteral("Tensor Cores: %1").arg(toQString(reports::tensorCoreCell(verdict))),
                      static_cast<int>(verdict));
  }
  filter_ = new QLineEdit(this);
  filter_->setObjectName("kernelsFilter");
  filter_->setPlaceholderText("Filter by kernel name, layer, precision or rule");
  filter_->setClearButtonEnabled(true);
  filter_->setMaximumWidth(320);
  top->addWidget(heading_, 1);
  top->addWidget(verdict_);
  top->addWidget(filter_);
  layout->addLayout(top);

  table_ = new QTableView(this);
  table_->setObjectName("kernelsTable");
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(KernelsModel::kTime, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table_, 1);

  auto* bottom = new QHBoxLayout;
  detail_ = makeNote({}, "kernelDetail", this);
  detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  show_layer_ = new QPushButton("Show layer", this);
  show_layer_->setObjectName("showKernelLayer");
  show_layer_->setToolTip("Show the layer that ran most of this kernel's time in the Layers tab (or double-click the row)");
  bottom->addWidget(detail_, 1);
  bottom->addWidget(show_layer_, 0, Qt::AlignTop);
  layout->addLayout(bottom);

  connect(verdict_, &QComboBox::currentIndexChanged, this, &KernelsTab::applyVerdictFilter);
  connect(filter_, &QLineEdit::textChanged, proxy_, &TableFilterProxy::setTextFilter);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &KernelsTab::showSelected);
  // Showing the layer switches tabs, so it waits for a deliberate choice (double-click, Enter,
  // the button) rather than following every row the arrow keys pass over.
  connect(table_, &QTableView::activated, this, &KernelsTab::showSelectedLayer);
  connect(show_layer_, &QPushButton::clicked, this, &KernelsTab::showSelectedLayer);
  showRun(nullptr);
}

void KernelsTab::showRun(RunPtr run) {
  run_ = std::move(run);
  model_->setRun(run_.get());
  filter_->clear();
  verdict_->setCurrentIndex(0);
  if (!run_) {
    heading_->setText("No run loaded");
  } else {
    const bool on_cpu = run_->summary.recorded_on_cpu;
    heading_->setText(QStringLiteral("%1 %2 by name, %3 in all%4")
                          .arg(model_->rowCount())
                          .arg(on_cpu ? "host ops" : "kernels")
                          .arg(durationText(model_->totalTimeNs()))
                          .arg(on_cpu ? " (a CPU run: no Tensor Core verdicts)" : ""));
  }
  // Without hardware counters the measured column would be blank throughout.
  table_->setColumnHidden(KernelsModel::kMeasuredActive, !model_->hasCounters());
  table_->resizeColumnsToContents();
  // Kernel and operator names run to hundreds of characters: cut the columns, the tooltip and the
  // detail below have them whole.
  table_->setColumnWidth(KernelsModel::kKernel, 420);
  table_->setColumnWidth(KernelsModel::kLayer, std::min(table_->columnWidth(KernelsModel::kLayer), 260));
  showSelected();
}

QString KernelsTab::selectedLayer() const {
  const KernelsModel::Row* row = model_->at(proxy_->mapToSource(table_->currentIndex()).row());
  return row ? row->layer : QString();
}

void KernelsTab::applyVerdictFilter() {
  proxy_->setRoleFilter(KernelsModel::kVerdictRole, verdict_->currentData());
}

void KernelsTab::showSelected() {
  const KernelsModel::Row* row = model_->at(proxy_->mapToSource(table_->currentIndex()).row());
  show_layer_->setEnabled(row && !row->layer.isEmpty());
  if (!row) {
    detail_->setText(run_ ? "Select a kernel to see its full name and why it got its verdict." : QString());
    return;
  }
  QString where = QStringLiteral("outside any layer");
  if (!row->layer.isEmpty()) {
    where = QStringLiteral("mostly in %1").arg(row->layer.toHtmlEscaped());
    if (row->other_layers > 0) where += QStringLiteral(" and %1 more").arg(row->other_layers);
  }
  detail_->setText(QStringLiteral("<b style='font-family:monospace'>%1</b><br>%2, %3 calls, %4, %5.<br>%6")
                       .arg(row->name.toHtmlEscaped(),
                            QStringLiteral("Tensor Cores: %1").arg(toQString(reports::tensorCoreCell(row->verdict))))
                       .arg(row->calls)
                       .arg(durationText(row->time_ns), where, row->evidence.toHtmlEscaped()));
}

void KernelsTab::showSelectedLayer() {
  const QString layer = selectedLayer();
  if (!layer.isEmpty()) emit layerSelected(layer);
}

}  // namespace ampscope::gui
