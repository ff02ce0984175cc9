#include "gui/tabs/compare_tab.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "analyzer/advice/run_comparison.h"
#include "gui/tabs/chart_style.h"

namespace ampscope::gui {

namespace {

constexpr qsizetype kCategoryLabelLimit = 48;

QString fileName(const RunPtr& run) { return QFileInfo(toQString(run->path)).fileName(); }

// What `ampscope diff` compares: rows both runs have time in. A row in one run only has no
// speedup to measure; the note under the table counts those.
std::vector<analyzer::OperatorComparison> commonRows(const std::vector<analyzer::OperatorComparison>& rows) {
  std::vector<analyzer::OperatorComparison> out;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(out),
               [](const analyzer::OperatorComparison& row) { return row.a_trace_ns > 0 && row.b_trace_ns > 0; });
  return out;
}

// The prediction the diff scores: A's figure for the change it found B made (AMP, TF32, padding,
// data loading), as compareRuns chose it; none when the change is unknown.
std::optional<analyzer::Projection> headlineProjection(const analyzer::RunComparison& c) {
  if (!c.predicted_speedup) return std::nullopt;
  return analyzer::Projection{c.predicted_from, *c.predicted_speedup};
}

// A dashed vertical line at speedup x across n categories, on its own hidden y axis.
void referenceLine(QChart* chart, const QString& name, double x, int n, const QColor& color, QValueAxis* speedups,
                   QValueAxis* rows) {
  auto* line = new QLineSeries;
  line->setName(name);
  line->append(x, -0.5);
  line->append(x, n - 0.5);
  QPen pen(color);
  pen.setWidthF(2.0);
  pen.setStyle(Qt::DashLine);
  line->setPen(pen);
  chart->addSeries(line);
  line->attachAxis(speedups);
  line->attachAxis(rows);
}

}  // namespace

CompareTab::CompareTab(QWidget* parent) : RunView(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(10);
  auto* top = new QHBoxLayout;
  runs_ = new QLabel(this);
  runs_->setObjectName("comparedRuns");
  runs_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  open_second_ = new QPushButton("Open second run…", this);
  open_second_->setObjectName("openSecondRunButton");
  open_second_->setToolTip("Open a second run of the same model (another precision, more data-loader workers, ...)");
  connect(open_second_, &QPushButton::clicked, this, &CompareTab::requestComparisonFile);
  top->addWidget(runs_, 1);
  top->addWidget(open_second_);
  layout->addLayout(top);

  pages_ = new QStackedWidget(this);
  layout->addWidget(pages_, 1);
  message_ = addMessagePage(pages_, "compareMessage", -1);

  auto* page = new QWidget;
  auto* page_layout = new QVBoxLayout(page);
  page_layout->setContentsMargins(0, 0, 0, 0);
  page_layout->setSpacing(10);
  auto* cards = new QHBoxLayout;
  cards->setSpacing(12);
  a_step_ = new FigureCard("A steady step", "baselineStepValue");
  b_step_ = new FigureCard("B steady step", "candidateStepValue");
  measured_ = new FigureCard("Measured speedup", "measuredSpeedupValue");
  predicted_ = new FigureCard("A predicted", "predictedSpeedupValue");
  for (FigureCard* card : {a_step_, b_step_, measured_, predicted_}) cards->addWidget(card, 1);
  page_layout->addLayout(cards);
  projections_ = makeTable({"Step speedup", "Step time", "What"}, "projectionsTable", page, {0, 1});
  projections_->setSortingEnabled(false);
  page_layout->addWidget(projections_);

  auto* splitter = new QSplitter(Qt::Horizontal, page);
  auto* rows_page = new QWidget;
  auto* rows_layout = new QVBoxLayout(rows_page);
  rows_layout->setContentsMargins(0, 0, 0, 0);
  rows_ = makeTable({"Layer", "A / step", "B / step", "Speedup"}, "layerComparison", rows_page, {1, 2, 3});
  rows_note_ = makeNote({}, "layerComparisonNote", rows_page);
  rows_layout->addWidget(rows_, 1);
  rows_layout->addWidget(rows_note_);
  chart_view_ = makeChartView("Measured speedup per layer (A / B)", "layerSpeedupChart");
  splitter->addWidget(rows_page);
  splitter->addWidget(chart_view_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({560, 840});
  page_layout->addWidget(splitter, 1);
  pages_->addWidget(page);
  refresh();
}

void CompareTab::showRun(RunPtr run) {
  run_ = std::move(run);
  if (!run_) other_.reset();
  refresh();
}

void CompareTab::showComparison(RunPtr other) {
  other_ = std::move(other);
  refresh();
}

void CompareTab::showMessage(const QString& text) {
  message_->setText(text);
  pages_->setCurrentIndex(0);
  rows_->setRowCount(0);
  projections_->setRowCount(0);
  resetChart(chart_view_, "Measured speedup per layer (A / B)");
}

void CompareTab::refresh() {
  open_second_->setEnabled(run_ != nullptr);
  if (!run_) {
    runs_->setText("No run loaded");
    showMessage("Open a trace first; then open a second run of the same model here to compare them.");
    return;
  }
  runs_->setText(QStringLiteral("<b>A</b> %1 &nbsp;&nbsp; <b>B</b> %2")
                     .arg(fileName(run_).toHtmlEscaped(),
                          other_ ? fileName(other_).toHtmlEscaped() : QStringLiteral("<i>none yet</i>")));
  if (!other_) {
    showMessage("Open a second run of the same model (for example with AMP on, or with more data-loader "
                "workers) to see the speedup it measured beside what this run's analysis predicted.");
    return;
  }
  const analyzer::RunComparison comparison = analyzer::compareRuns(run_->summary, other_->summary);
  // Layers where both traces name them; else the operators (Kineto traces of stock PyTorch).
  const bool by_layer = !run_->summary.layers.empty() && !other_->summary.layers.empty();
  const std::vector<analyzer::OperatorComparison>& all = by_layer ? comparison.layers : comparison.operators;
  const QString what = by_layer ? "layer" : "operator";
  pages_->setCurrentIndex(1);
  showCards(comparison);
  const std::vector<analyzer::OperatorComparison> rows = commonRows(all);
  const bool per_step = comparison.measured_basis == analyzer::MeasuredBasis::kSteps;
  showRows(rows, what, per_step);
  std::size_t only_a = 0;
  std::size_t only_b = 0;
  for (const analyzer::OperatorComparison& row : all) {
    only_a += row.a_trace_ns > 0 && row.b_trace_ns == 0;
    only_b += row.b_trace_ns > 0 && row.a_trace_ns == 0;
  }
  rows_note_->setText(QStringLiteral("%1 %2s in both runs: the %3 time of their work %4 and A's time over "
                                     "B's. Not shown: %5 only in A, %6 only in B.")
                          .arg(rows.size())
                          .arg(what)
                          .arg(run_->summary.recorded_on_cpu ? "host-op" : "GPU")
                          .arg(per_step ? QStringLiteral("per step")
                                        : QStringLiteral("over the whole trace (no steps; speedups per call)"))
                          .arg(only_a)
                          .arg(only_b));
  showChart(rows, comparison, what);
}

void CompareTab::showCards(const analyzer::RunComparison& c) {
  // Without steps there is no steady step to show: each run's GPU busy time over its trace is what
  // the measured speedup compares.
  const bool per_step = c.measured_basis == analyzer::MeasuredBasis::kSteps;
  const QString caption = per_step ? QString() : QStringLiteral("GPU busy over the trace: ");
  a_step_->setFigure(durationText(per_step ? c.a_step_ns : c.gpu_work.a_busy_ns), caption + fileName(run_));
  b_step_->setFigure(durationText(per_step ? c.b_step_ns : c.gpu_work.b_busy_ns), caption + fileName(other_));
  measured_->setFigure(speedupText(c.measured_speedup),
                       c.measured_basis == analyzer::MeasuredBasis::kSteps
                           ? QStringLiteral("B's steady step against A's")
                           : QStringLiteral("GPU busy time, %1: %2")
                                 .arg(toQString(analyzer::measuredBasisLabel(c.measured_basis)), toQString(c.basis_reason)));
  const std::optional<analyzer::Projection> headline = headlineProjection(c);
  if (headline) {
    const bool comparable = c.measured_speedup > 0 && std::isfinite(headline->speedup) && headline->speedup > 0;
    predicted_->setFigure(speedupText(headline->speedup),
                          toQString(headline->what) +
                              (comparable ? QStringLiteral("; measured %1 of it").arg(percentText(c.measured_speedup / headline->speedup))
                                          : QString()));
  } else {
    predicted_->setFigure("–", c.predicted_from.empty() ? QStringLiteral("A's analysis made no projection") : toQString(c.predicted_from));
  }
  projections_->setRowCount(static_cast<int>(c.a_projections.size() + 1));
  const auto row = [this, &c](int at, double speedup, const QString& what, bool bold) {
    const double step = std::isfinite(speedup) && speedup > 0 ? static_cast<double>(c.a_step_ns) / speedup : 0.0;
    QTableWidgetItem* cells[] = {new NumberItem(speedupText(speedup), speedup),
                                 new NumberItem(step > 0 ? durationText(static_cast<std::int64_t>(step)) : "–", step),
                                 new QTableWidgetItem(what)};
    for (int column = 0; column < 3; ++column) {
      QFont font = cells[column]->font();
      font.setBold(bold);
      cells[column]->setFont(font);
      projections_->setItem(at, column, cells[column]);
    }
  };
  row(0, c.measured_speedup, "measured: B against A", true);
  for (std::size_t i = 0; i < c.a_projections.size(); ++i) {
    row(static_cast<int>(i + 1), c.a_projections[i].speedup, "A predicted: " + toQString(c.a_projections[i].what), false);
  }
  fitColumns(projections_);
  fitHeightToRows(projections_);
}

void CompareTab::showRows(const std::vector<analyzer::OperatorComparison>& rows, const QString& what, bool per_step) {
  rows_->setSortingEnabled(false);
  rows_->horizontalHeaderItem(0)->setText(what.at(0).toUpper() + what.mid(1));
  rows_->horizontalHeaderItem(1)->setText(per_step ? "A / step" : "A / trace");
  rows_->horizontalHeaderItem(2)->setText(per_step ? "B / step" : "B / trace");
  rows_->setRowCount(static_cast<int>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const analyzer::OperatorComparison& r = rows[i];
    const int row = static_cast<int>(i);
    // Op call shapes pair across the runs: the shapes tell rows of one op apart.
    auto* name = new QTableWidgetItem(toQString(r.shapes.empty() ? r.name : r.name + " " + r.shapes));
    name->setToolTip(name->text());
    rows_->setItem(row, 0, name);
    const std::int64_t a_ns = per_step ? r.a_ns_per_step : r.a_trace_ns;
    const std::int64_t b_ns = per_step ? r.b_ns_per_step : r.b_trace_ns;
    rows_->setItem(row, 1, new NumberItem(durationText(a_ns), static_cast<double>(a_ns)));
    rows_->setItem(row, 2, new NumberItem(durationText(b_ns), static_cast<double>(b_ns)));
    auto* speedup = new NumberItem(speedupText(r.speedup), r.speedup);
    // Slower in B is the surprise worth seeing at a glance.
    if (r.speedup > 0 && r.speedup < 0.95) speedup->setForeground(QColor(0xb42318));
    rows_->setItem(row, 3, speedup);
  }
  rows_->setSortingEnabled(true);
  rows_->sortByColumn(1, Qt::DescendingOrder);
  fitColumns(rows_, 360);
}

void CompareTab::showChart(const std::vector<analyzer::OperatorComparison>& rows, const analyzer::RunComparison& c,
                           const QString& what) {
  QChart* chart = resetChart(chart_view_, QStringLiteral("Measured speedup per %1 (A / B), the %2 largest in A")
                                              .arg(what)
                                              .arg(kChartedRows));
  if (rows.empty()) return;
  // rows come largest A time first; the chart draws its first category at the bottom.
  const auto shown = static_cast<int>(std::min<std::size_t>(rows.size(), kChartedRows));
  auto* set = new QBarSet("measured speedup");
  set->setColor(seriesColor(0));
  QStringList categories;
  std::set<QString> used;
  double high = 1.0;
  for (int i = shown - 1; i >= 0; --i) {
    const analyzer::OperatorComparison& r = rows[static_cast<std::size_t>(i)];
    QString label = toQString(r.name);
    if (label.size() > kCategoryLabelLimit) label = label.left(kCategoryLabelLimit - 1) + "…";
    // Categories must be distinct; cut names can collide.
    while (!used.insert(label).second) label += ' ';
    categories << label;
    set->append(r.speedup);
    high = std::max(high, r.speedup);
  }
  auto* bars = new QHorizontalBarSeries;
  bars->setObjectName("layerSpeedups");
  bars->append(set);
  bars->setBarWidth(0.7);
  chart->addSeries(bars);
  auto* names = new QBarCategoryAxis;
  names->append(categories);
  // Qt elides a category label taller than its row: a smaller font keeps 20 names readable.
  QFont small = names->labelsFont();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  names->setLabelsFont(small);
  auto* speedups = new QValueAxis;
  speedups->setTitleText("speedup (A time / B time)");
  speedups->setLabelFormat("%.2fx");
  chart->addAxis(names, Qt::AlignLeft);
  chart->addAxis(speedups, Qt::AlignBottom);
  bars->attachAxis(names);
  bars->attachAxis(speedups);

  // The whole step's measured speedup and A's prediction, as lines across the bars.
  auto* rows_axis = new QValueAxis;
  rows_axis->setRange(-0.5, shown - 0.5);
  rows_axis->setVisible(false);
  chart->addAxis(rows_axis, Qt::AlignRight);
  if (c.measured_speedup > 0) {
    const QString whole = c.measured_basis == analyzer::MeasuredBasis::kSteps ? "whole step" : "whole trace's GPU work";
    referenceLine(chart, whole + ", measured " + speedupText(c.measured_speedup), c.measured_speedup, shown,
                  QColor(0x52606d), speedups, rows_axis);
    high = std::max(high, c.measured_speedup);
  }
  if (const std::optional<analyzer::Projection> headline = headlineProjection(c); headline && std::isfinite(headline->speedup)) {
    referenceLine(chart, "A predicted (" + toQString(headline->what) + ") " + speedupText(headline->speedup),
                  headline->speedup, shown, seriesColor(1), speedups, rows_axis);
    high = std::max(high, headline->speedup);
  }
  speedups->setRange(0, high * 1.1);
  speedups->applyNiceNumbers();
}

}  // namespace ampscope::gui
