#include "gui/tabs/roofline_tab.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/models/op_performance_model.h"
#include "gui/models/table_filter_proxy.h"
#include "gui/tabs/chart_style.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/roofline_style.h"

namespace ampscope::gui {

namespace {

using analyzer::MathPrecision;

constexpr double kSmallestDot = 8.0;   // px: the lightest op stays visible
constexpr double kLargestDot = 24.0;   // px: the heaviest op
constexpr int kDotSizes = 4;           // size classes between them
const char* const kTitle = "Roofline";

// The colours report.html gives precisions, so the two rooflines read alike.
QColor precisionColor(MathPrecision precision) { return QColor::fromString(reports::precisionColor(precision)); }

QString precisionLabel(MathPrecision precision) {
  return precision == MathPrecision::kUnknown ? QStringLiteral("precision unknown")
                                              : QString(analyzer::precisionName(precision));
}

double decadeBelow(double value) { return std::pow(10.0, std::floor(std::log10(value))); }
double decadeAbove(double value) { return std::pow(10.0, std::ceil(std::log10(value))); }

QLogValueAxis* logAxis(const QString& title, double low, double high) {
  auto* axis = new QLogValueAxis;
  axis->setBase(10.0);
  axis->setTitleText(title);
  axis->setLabelFormat("%g");
  axis->setMinorTickCount(8);
  axis->setMinorGridLineColor(QColor(0xeef0f3));
  axis->setRange(low, high);
  return axis;
}

QTableView* makeOpTable(QAbstractItemModel* model, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName("opPerformanceTable");
  view->setModel(model);
  view->setSortingEnabled(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->verticalHeader()->setVisible(false);
  view->horizontalHeader()->setStretchLastSection(true);
  return view;
}

}  // namespace

RooflineTab::RooflineTab(QWidget* parent) : RunView(parent) {
  model_ = new OpPerformanceModel(this);
  proxy_ = new TableFilterProxy(OpPerformanceModel::kSortRole, this);
  proxy_->setSourceModel(model_);
  proxy_->setTextColumns({OpPerformanceModel::kOp, OpPerformanceModel::kLayer, OpPerformanceModel::kPass,
                          OpPerformanceModel::kPrecision, OpPerformanceModel::kBound});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(8);
  heading_ = makeHeading({}, this);
  heading_->setObjectName("rooflineHeading");
  layout->addWidget(heading_);
  note_ = makeNote({}, "rooflineNote", this);
  layout->addWidget(note_);

  // In place of the chart when no op can be placed; the table then has the room.
  empty_note_ = makeNote({}, "rooflineEmptyNote", this);
  empty_note_->setAlignment(Qt::AlignCenter);
  empty_note_->setStyleSheet("color: #52606d; background: #f5f7fa; border: 1px solid #dde3ea; border-radius: 6px; "
                             "padding: 24px;");
  layout->addWidget(empty_note_);
  chart_view_ = makeChartView(kTitle, "rooflineChart", this);
  chart_view_->setMinimumHeight(320);

  auto* table_page = new QWidget(this);
  auto* table_layout = new QVBoxLayout(table_page);
  table_layout->setContentsMargins(0, 6, 0, 0);
  auto* table_top = new QHBoxLayout;
  auto* table_heading = makeHeading("Every op call shape of the per-op model", table_page);
  filter_ = new QLineEdit(table_page);
  filter_->setObjectName("opPerformanceFilter");
  filter_->setPlaceholderText("Filter by op, layer, pass, precision or bound");
  filter_->setClearButtonEnabled(true);
  filter_->setMaximumWidth(320);
  table_top->addWidget(table_heading, 1);
  table_top->addWidget(filter_);
  table_layout->addLayout(table_top);
  table_ = makeOpTable(proxy_, table_page);
  table_->sortByColumn(OpPerformanceModel::kTime, Qt::DescendingOrder);
  table_layout->addWidget(table_, 1);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(chart_view_);
  splitter->addWidget(table_page);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);

  connect(filter_, &QLineEdit::textChanged, proxy_, &TableFilterProxy::setTextFilter);
  // A row whose layer is known shows that layer on a deliberate choice (double-click, Enter).
  connect(table_, &QTableView::activated, this, [this](const QModelIndex& index) {
    const QString layer = index.data(OpPerformanceModel::kLayerRole).toString();
    if (!layer.isEmpty()) emit layerSelected(layer);
  });
  showRun(nullptr);
}

void RooflineTab::showRun(RunPtr run) {
  run_ = std::move(run);
  model_->setRun(run_.get());
  filter_->clear();
  if (!run_) {
    heading_->setText("No run loaded");
  } else if (model_->device()) {
    heading_->setText(QStringLiteral("Roofline on the %1 row").arg(toQString(model_->device()->name)));
  } else {
    heading_->setText(kTitle);
  }
  drawChart();
  table_->setColumnHidden(OpPerformanceModel::kLayer, !model_->namesLayers());
  // A CPU run's host ops have no GPU rate or AMP prediction: the what-if columns estimate them.
  for (const int column : {OpPerformanceModel::kIntensity, OpPerformanceModel::kAchieved, OpPerformanceModel::kPeak,
                           OpPerformanceModel::kBound, OpPerformanceModel::kAmpChange, OpPerformanceModel::kPredictedAmp,
                           OpPerformanceModel::kAmpSpeedup}) {
    table_->setColumnHidden(column, model_->recordedOnCpu());
  }
  for (const int column : {OpPerformanceModel::kWhatIfFp32, OpPerformanceModel::kWhatIfAmp}) {
    table_->setColumnHidden(column, !model_->hasWhatIf());
  }
  table_->resizeColumnsToContents();
  table_->setColumnWidth(OpPerformanceModel::kOp, std::min(table_->columnWidth(OpPerformanceModel::kOp), 260));
  table_->setColumnWidth(OpPerformanceModel::kLayer, std::min(table_->columnWidth(OpPerformanceModel::kLayer), 200));
  table_->setColumnWidth(OpPerformanceModel::kShapes, std::min(table_->columnWidth(OpPerformanceModel::kShapes), 260));
  table_->setColumnWidth(OpPerformanceModel::kAmpChange, std::min(table_->columnWidth(OpPerformanceModel::kAmpChange), 200));
}

QString RooflineTab::whyNoPoints() const {
  if (!run_) return QStringLiteral("Open a trace to see its ops against the roofs of the GPU they ran on.");
  const analyzer::TraceSummary& s = run_->summary;
  const QString lead = QStringLiteral("No op has both an achieved rate and an arithmetic intensity: ");
  if (s.recorded_on_cpu) {
    QString why = lead + QStringLiteral("the run was recorded on the CPU, so its ops have no GPU rate to place "
                                        "against a GPU's roofs.");
    if (const analyzer::DeviceSpec* target = s.what_if.device.spec.get()) {
      why += QStringLiteral(" The what-if projection estimates the run on the %1 instead (Summary and Layers tabs: "
                            "model estimates, not measurements).")
                 .arg(toQString(target->name));
    }
    return why;
  }
  if (!model_->device()) {
    const QString note = model_->note().isEmpty() ? toQString(reports::kDeviceUnknownText) : model_->note();
    return lead + "no rate is measured without a device to measure it against: " + note + ".";
  }
  if (model_->rowCount() == 0) return lead + QStringLiteral("no op of this trace ran GPU work.");
  // The heaviest op says why in the analyzer's words.
  const OpPerformanceModel::Row* heaviest = model_->at(0);
  QString why = lead + QStringLiteral("none of the %1 op call shapes has known FLOPs and bytes with a physical rate.")
                           .arg(model_->rowCount());
  const std::string& reason = heaviest->analysis.rate_note.empty() ? heaviest->analysis.work.note : heaviest->analysis.rate_note;
  if (!reason.empty()) why += QStringLiteral(" The heaviest, %1: %2.").arg(heaviest->op, toQString(reason));
  return why;
}

void RooflineTab::drawChart() {
  rows_of_points_.clear();
  QChart* chart = resetChart(chart_view_, run_ && model_->device()
                                              ? QStringLiteral("Achieved rate against the %1's roofs").arg(toQString(model_->device()->name))
                                              : QString(kTitle));
  chart->legend()->setAlignment(Qt::AlignRight);
  const int placed = model_->rooflineRows();
  // The roofs the analysis chose for this run (analyzer/model/roofline.h), as report.html draws them.
  const analyzer::Roofline roofline =
      run_ ? analyzer::rooflineOf(run_->summary.op_performance, run_->summary.recorded_on_cpu) : analyzer::Roofline{};
  const bool draw = model_->device() && placed > 0;
  chart_view_->setVisible(draw);
  empty_note_->setVisible(!draw);
  if (!draw) {
    empty_note_->setText(whyNoPoints());
    note_->setText(run_ && model_->device() ? "Rates against the " + toQString(model_->device()->name) +
                                                  " row of the device table: " + model_->deviceReason() + "."
                                            : QString());
    note_->setVisible(!note_->text().isEmpty());
    return;
  }
  const analyzer::DeviceSpec& device = *model_->device();

  // The dots: a series per precision, in the analyzer's order (heaviest first) within each.
  std::map<MathPrecision, std::vector<int>> rows_by_precision;
  std::int64_t heaviest_ns = 1;
  std::int64_t placed_ns = 0;
  std::int64_t total_ns = 0;
  double x_low = std::numeric_limits<double>::max();
  double x_high = 0;
  double y_low = std::numeric_limits<double>::max();
  double y_high = 0;
  for (int i = 0; i < model_->rowCount(); ++i) {
    const analyzer::OpRow& row = model_->at(i)->analysis;
    total_ns += row.time_ns;
    if (!analyzer::onRoofline(row)) continue;
    rows_by_precision[row.precision].push_back(i);
    heaviest_ns = std::max(heaviest_ns, row.time_ns);
    placed_ns += row.time_ns;
    x_low = std::min(x_low, *row.intensity);
    x_high = std::max(x_high, *row.intensity);
    y_low = std::min(y_low, *row.achieved_tflops);
    y_high = std::max(y_high, *row.achieved_tflops);
  }
  const double bandwidth_tbs = roofline.memory_gbs / 1e3;  // TFLOP/s per FLOP/byte on the memory roof
  double top = 0;
  for (const analyzer::RooflineRoof& roof : roofline.roofs) {
    top = std::max(top, roof.tflops);
    y_high = std::max(y_high, roof.tflops);
    if (bandwidth_tbs > 0) {
      x_low = std::min(x_low, roof.tflops / bandwidth_tbs);
      x_high = std::max(x_high, roof.tflops / bandwidth_tbs);
    }
  }
  // Whole decades, with room right of the last ridge point so the flat roofs read as flat.
  x_low = decadeBelow(x_low);
  x_high = decadeAbove(x_high * 3.0);
  y_low = decadeBelow(y_low);
  y_high = decadeAbove(y_high * 1.5);
  auto* x_axis = logAxis("arithmetic intensity (FLOP/byte)", x_low, x_high);
  auto* y_axis = logAxis("achieved TFLOP/s", y_low, y_high);
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  const auto attach = [&](QXYSeries* series) {
    chart->addSeries(series);
    series->attachAxis(x_axis);
    series->attachAxis(y_axis);
  };

  // The roofs: the memory slope from where it enters the plot up to the highest peak, and each
  // peak flat from its ridge point on.
  if (bandwidth_tbs > 0 && top > 0) {
    auto* memory = new QLineSeries;
    memory->setObjectName("memoryRoof");
    memory->setName(QStringLiteral("DRAM %1 GB/s").arg(roofline.memory_gbs, 0, 'f', 0));
    const double start = std::max(x_low, y_low / bandwidth_tbs);
    memory->append(start, start * bandwidth_tbs);
    memory->append(top / bandwidth_tbs, top);
    memory->setPen(QPen(QColor(0x3e4c59), 2));
    attach(memory);
  }
  for (const analyzer::RooflineRoof& roof : roofline.roofs) {
    auto* flat = new QLineSeries;
    flat->setObjectName("peakRoof");
    flat->setName(QStringLiteral("%1 peak %2").arg(toQString(reports::roofLabel(roof)), toQString(reports::formatTflops(roof.tflops))));
    flat->append(bandwidth_tbs > 0 ? roof.tflops / bandwidth_tbs : x_low, roof.tflops);
    flat->append(x_high, roof.tflops);
    flat->setPen(QPen(QColor::fromString(reports::roofColor(roof)), 2, Qt::DashLine));
    attach(flat);
  }

  // Dot area by time, so a few heavy ops read at a glance among many light ones: a series per
  // precision and size class (Qt 6.4 draws no scatter point that has a size of its own), the
  // largest drawn first so that small dots stay on top; the legend names each precision once.
  for (const auto& [precision, rows] : rows_by_precision) {
    std::array<std::vector<int>, kDotSizes> by_size;
    for (const int i : rows) {
      const double share = static_cast<double>(model_->at(i)->analysis.time_ns) / static_cast<double>(heaviest_ns);
      const int size_class = std::clamp(static_cast<int>(std::sqrt(share) * kDotSizes), 0, kDotSizes - 1);
      by_size[static_cast<std::size_t>(size_class)].push_back(i);
    }
    bool named = false;
    for (int size_class = kDotSizes - 1; size_class >= 0; --size_class) {
      const std::vector<int>& sized = by_size[static_cast<std::size_t>(size_class)];
      if (sized.empty()) continue;
      auto* series = new QScatterSeries;
      series->setObjectName("rooflineOps");
      series->setName(QStringLiteral("%1 (%2 op%3)").arg(precisionLabel(precision)).arg(rows.size()).arg(rows.size() == 1 ? "" : "s"));
      series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
      series->setMarkerSize(kSmallestDot + (kLargestDot - kSmallestDot) * size_class / (kDotSizes - 1));
      QColor fill = precisionColor(precision);
      fill.setAlpha(180);
      series->setColor(fill);
      series->setBorderColor(precisionColor(precision).darker(140));
      QVector<int>& point_rows = rows_of_points_[series];
      for (const int i : sized) {
        const analyzer::OpRow& row = model_->at(i)->analysis;
        series->append(*row.intensity, *row.achieved_tflops);
        point_rows.push_back(i);
      }
      attach(series);
      for (QLegendMarker* marker : chart->legend()->markers(series)) marker->setVisible(!named);
      named = true;
      connect(series, &QScatterSeries::hovered, this, [this, series](const QPointF& value, bool state) {
        if (!state) {
          QToolTip::hideText();
          return;
        }
        QToolTip::showText(QCursor::pos(), pointToolTip(series, pointAt(series, value)), chart_view_);
      });
      connect(series, &QScatterSeries::clicked, this, [this, series](const QPointF& value) {
        selectModelRow(rowOfPoint(series, pointAt(series, value)));
      });
    }
  }

  note_->setText(QStringLiteral("Rates against the %1 row of the device table (%2). %3 of %4 op call shapes are "
                                "placed (%5 of the op time): those whose FLOPs, bytes and a physical rate are known. "
                                "Dot area by time, colour by the precision its kernels ran in. The roofs are the "
                                "row's DRAM bandwidth and its dense peaks in those precisions%6. A dot far below its "
                                "roof is latency- or launch-bound, or runs a slow kernel for its shape.")
                     .arg(toQString(device.name), model_->deviceReason())
                     .arg(placed)
                     .arg(model_->rowCount())
                     .arg(percentText(total_ns > 0 ? static_cast<double>(placed_ns) / static_cast<double>(total_ns) : 0.0),
                          toQString(reports::projectedRoofsText(roofline))));
  note_->show();
}

int RooflineTab::pointAt(const QScatterSeries* series, const QPointF& value) const {
  // The series hands back its own point; the nearest one on the log scales is it.
  int best = -1;
  double best_distance = std::numeric_limits<double>::max();
  const QList<QPointF> points = series->points();
  for (int i = 0; i < points.size(); ++i) {
    if (points[i].x() <= 0 || points[i].y() <= 0 || value.x() <= 0 || value.y() <= 0) continue;
    const double dx = std::log10(points[i].x() / value.x());
    const double dy = std::log10(points[i].y() / value.y());
    const double distance = dx * dx + dy * dy;
    if (distance < best_distance) {
      best_distance = distance;
      best = i;
    }
  }
  return best;
}

int RooflineTab::rowOfPoint(const QScatterSeries* series, int point) const {
  const auto found = rows_of_points_.constFind(series);
  if (found == rows_of_points_.constEnd() || point < 0 || point >= found->size()) return -1;
  return (*found)[point];
}

QString RooflineTab::pointToolTip(const QScatterSeries* series, int point) const {
  const OpPerformanceModel::Row* row = model_->at(rowOfPoint(series, point));
  return row ? row->summary : QString();
}

void RooflineTab::selectModelRow(int row) {
  if (row < 0) return;
  QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
  if (!index.isValid()) {  // hidden by the filter: the user asked for this op, show it
    filter_->clear();
    index = proxy_->mapFromSource(model_->index(row, 0));
  }
  table_->setCurrentIndex(index);
  table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

}  // namespace ampscope::gui
