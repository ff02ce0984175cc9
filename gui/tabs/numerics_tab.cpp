#include "gui/tabs/numerics_tab.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "gui/tabs/chart_style.h"

namespace ampscope::gui {

namespace {

// The trainer's per-step counter names (docs/profile_database.md).
constexpr std::string_view kLossCounter = "loss";
constexpr std::string_view kLossScaleCounter = "loss_scale";
constexpr std::string_view kSkippedCounter = "skipped_step";
const char* const kScaleTitle = "Loss scale and skipped steps";
const char* const kLossTitle = "Loss";
constexpr qsizetype kMarkedSteps = 60;

// One value per step, by step number; a counter recorded without a step number takes its
// position among the counters of its name.
using StepSeries = std::map<std::int64_t, double>;

struct StepCounters {
  StepSeries loss;
  StepSeries loss_scale;
  StepSeries skipped;
};

StepCounters readStepCounters(const trace::Trace& trace) {
  StepCounters out;
  std::map<std::string_view, std::int64_t> unnumbered;
  for (const trace::Counter& counter : trace.counters) {
    const std::string_view name = trace.str(counter.name);
    StepSeries* series = name == kLossCounter        ? &out.loss
                         : name == kLossScaleCounter ? &out.loss_scale
                         : name == kSkippedCounter   ? &out.skipped
                                                     : nullptr;
    if (!series) continue;
    const std::int64_t step = counter.step >= 0 ? counter.step : unnumbered[name]++;
    (*series)[step] = counter.value;
  }
  return out;
}

QString scaleText(double value) { return QString::number(value, 'g', 12); }

QString shareText(double fraction) { return percentText(fraction); }

// The x axis of both charts: training steps, whole numbers.
QValueAxis* stepAxis(std::int64_t first, std::int64_t last) {
  auto* axis = new QValueAxis;
  axis->setTitleText("step");
  axis->setLabelFormat("%.0f");
  axis->setRange(static_cast<double>(first), static_cast<double>(std::max(last, first + 1)));
  axis->applyNiceNumbers();
  return axis;
}

}  // namespace

NumericsTab::NumericsTab(QWidget* parent) : RunView(parent) {
  pages_ = new QStackedWidget(this);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(pages_);

  // Page 0: a message in place of charts (no run, or no counters).
  message_ = addMessagePage(pages_, "noCountersMessage");
  message_->setTextFormat(Qt::RichText);

  // Page 1: cards, the two charts and the tensor table.
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(10);
  auto* cards = new QHBoxLayout;
  cards->setSpacing(12);
  loss_ = new FigureCard("Loss", "lossValue");
  loss_scale_ = new FigureCard("Loss scale", "lossScaleValue");
  skipped_ = new FigureCard("Skipped steps", "skippedStepsValue");
  headroom_ = new FigureCard("Largest safe loss scale", "headroomValue");
  for (FigureCard* card : {loss_, loss_scale_, skipped_, headroom_}) cards->addWidget(card, 1);
  layout->addLayout(cards);

  scale_view_ = makeChartView(kScaleTitle, "lossScaleChart");
  loss_view_ = makeChartView(kLossTitle, "lossChart");
  auto* tensors_page = new QWidget;
  auto* tensors_layout = new QVBoxLayout(tensors_page);
  tensors_layout->setContentsMargins(0, 6, 0, 0);
  tensors_layout->addWidget(makeHeading("Gradient underflow per tensor", tensors_page));
  tensors_note_ = makeNote({}, "tensorsNote", tensors_page);
  tensors_layout->addWidget(tensors_note_);
  tensors_ = makeTable({"Tensor", "Values", "Underflow", "Underflow, last steps", "Zero", "Zero, last steps",
                        "Non-finite", "|g| range", "Underflow at safe scale"},
                       "gradientTensors", tensors_page, {1, 2, 3, 4, 5, 6, 8});
  tensors_layout->addWidget(tensors_, 1);

  auto* splitter = new QSplitter(Qt::Vertical, page);
  splitter->addWidget(scale_view_);
  splitter->addWidget(loss_view_);
  splitter->addWidget(tensors_page);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 3);
  layout->addWidget(splitter, 1);
  pages_->addWidget(page);
  showRun(nullptr);
}

void NumericsTab::showMessage(const QString& text) {
  resetChart(scale_view_, kScaleTitle);
  resetChart(loss_view_, kLossTitle);
  tensors_->setRowCount(0);
  message_->setText(text);
  pages_->setCurrentIndex(0);
}

void NumericsTab::showRun(RunPtr run) {
  if (!run) {
    showMessage("Open a trace to see its loss scaling and gradient underflow.");
    return;
  }
  const analyzer::AmpNumerics& numerics = run->summary.amp_numerics;
  if (!numerics.recorded) {
    showMessage("<p style='font-size:15px; color:#1f2933'><b>This trace has no loss-scale counters.</b></p>"
                "<p>The loss, the loss scale, skipped steps and gradient histograms are recorded per step by "
                "ampscope's trainer (<code>ampscope train --profile</code>). Traces from PyTorch's profiler, "
                "Nsight Systems or nvprof do not carry them.</p>");
    return;
  }
  pages_->setCurrentIndex(1);
  showCards(numerics);
  showCharts(run->trace);
  showTensors(numerics);
}

void NumericsTab::showCards(const analyzer::AmpNumerics& n) {
  if (n.has_loss) {
    loss_->setFigure(QString::number(n.loss_first, 'g', 4) + " → " + QString::number(n.loss_last, 'g', 4),
                     QStringLiteral("step %1 → step %2").arg(n.loss_first_step).arg(n.loss_last_step));
  } else {
    loss_->setFigure("–", "no loss counter");
  }
  if (n.loss_scale_samples > 0) {
    loss_scale_->setFigure(scaleText(n.loss_scale_final),
                           QStringLiteral("final; min %1, max %2; %3")
                               .arg(scaleText(n.loss_scale_min), scaleText(n.loss_scale_max),
                                    toQString(analyzer::formatLossScaleHistory(n.loss_scale_changes, 3))));
  } else {
    loss_scale_->setFigure("–", "no loss scaling recorded");
  }
  if (n.counted_steps > 0) {
    skipped_->setFigure(QStringLiteral("%L1 of %L2").arg(n.skipped_steps).arg(n.counted_steps),
                        n.skipped.empty() ? QStringLiteral("no step skipped for Inf/NaN gradients")
                                          : "steps " + toQString(analyzer::formatStepRuns(n.skipped, 6)));
  } else {
    skipped_->setFigure("–", "no skipped_step counter");
  }
  if (n.suggested_loss_scale > 0) {
    headroom_->setFigure(scaleText(n.suggested_loss_scale),
                         "the largest recorded gradient, scaled, still fits FP16 (an upper bound)");
  } else {
    headroom_->setFigure("–", "needs gradient histograms");
  }
}

void NumericsTab::showCharts(const trace::Trace& trace) {
  QChart* scale_chart = resetChart(scale_view_, kScaleTitle);
  QChart* loss_chart = resetChart(loss_view_, kLossTitle);
  loss_chart->legend()->hide();  // one series, named by the title
  const StepCounters counters = readStepCounters(trace);
  const auto span = [](const StepSeries& series, std::int64_t& first, std::int64_t& last) {
    if (series.empty()) return;
    first = std::min(first, series.begin()->first);
    last = std::max(last, series.rbegin()->first);
  };
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  span(counters.loss_scale, first, last);
  span(counters.loss, first, last);

  scale_view_->setVisible(!counters.loss_scale.empty());
  if (!counters.loss_scale.empty()) {
    auto* scale = new QLineSeries;
    scale->setObjectName("lossScale");
    scale->setName("loss scale");
    scale->setColor(seriesColor(0));
    QList<QPointF> points;
    double low = counters.loss_scale.begin()->second;
    double high = low;
    for (const auto& [step, value] : counters.loss_scale) {
      // A log axis cannot place zero or a negative scale (the trainer never records one).
      if (value <= 0) continue;
      points.append(QPointF(static_cast<double>(step), value));
      low = std::min(low, value);
      high = std::max(high, value);
    }
    scale->replace(points);
    // Markers on each step while they stay apart; a long run reads as a line.
    scale->setPointsVisible(points.size() <= kMarkedSteps);
    scale->setMarkerSize(6);
    auto* skipped = new QScatterSeries;
    skipped->setObjectName("skippedSteps");
    skipped->setName("skipped step (Inf/NaN gradients)");
    skipped->setColor(QColor(0xd64545));
    skipped->setBorderColor(Qt::white);
    skipped->setMarkerSize(10);
    for (const auto& [step, value] : counters.skipped) {
      const auto at = counters.loss_scale.find(step);
      if (value > 0 && at != counters.loss_scale.end() && at->second > 0) {
        skipped->append(static_cast<double>(step), at->second);
      }
    }
    scale_chart->addSeries(scale);
    scale_chart->addSeries(skipped);
    QValueAxis* steps = stepAxis(first, last);
    auto* values = new QLogValueAxis;
    values->setBase(2);
    values->setTitleText("loss scale (log₂)");
    values->setLabelFormat("%g");
    // A constant scale still needs a range around it.
    values->setRange(low / 2, high * 2);
    scale_chart->addAxis(steps, Qt::AlignBottom);
    scale_chart->addAxis(values, Qt::AlignLeft);
    for (QAbstractSeries* series : {static_cast<QAbstractSeries*>(scale), static_cast<QAbstractSeries*>(skipped)}) {
      series->attachAxis(steps);
      series->attachAxis(values);
    }
  }

  loss_view_->setVisible(!counters.loss.empty());
  if (!counters.loss.empty()) {
    auto* loss = new QLineSeries;
    loss->setObjectName("loss");
    loss->setName("loss");
    loss->setColor(seriesColor(1));
    QList<QPointF> points;
    double low = counters.loss.begin()->second;
    double high = low;
    for (const auto& [step, value] : counters.loss) {
      points.append(QPointF(static_cast<double>(step), value));
      low = std::min(low, value);
      high = std::max(high, value);
    }
    loss->replace(points);
    loss->setPointsVisible(points.size() <= kMarkedSteps);
    loss->setMarkerSize(6);
    loss_chart->addSeries(loss);
    QValueAxis* steps = stepAxis(first, last);
    auto* values = new QValueAxis;
    values->setTitleText("loss");
    values->setRange(low, high > low ? high : low + 1);
    values->applyNiceNumbers();
    loss_chart->addAxis(steps, Qt::AlignBottom);
    loss_chart->addAxis(values, Qt::AlignLeft);
    loss->attachAxis(steps);
    loss->attachAxis(values);
  }
}

void NumericsTab::showTensors(const analyzer::AmpNumerics& n) {
  tensors_->setSortingEnabled(false);
  tensors_->setRowCount(static_cast<int>(n.tensors.size()));
  QStringList dtypes;
  for (const std::string& dtype : n.compute_dtypes) dtypes << toQString(dtype);
  tensors_note_->setText(
      n.tensors.empty()
          ? QStringLiteral("The trace records no per-tensor gradient counts.")
          : QStringLiteral("Share of each parameter tensor's gradient values that FP16 rounds to zero at the recorded "
                           "loss scale, and that are exactly zero: over all steps and over %1. Layers computed in %2.")
                .arg(toQString(analyzer::recentStepsText(n)), dtypes.isEmpty() ? QStringLiteral("an unrecorded type")
                                                                                : dtypes.join(", ")));
  for (std::size_t i = 0; i < n.tensors.size(); ++i) {
    const analyzer::TensorNumerics& t = n.tensors[i];
    const int row = static_cast<int>(i);
    auto* name = new QTableWidgetItem(toQString(t.tensor));
    name->setFont(QFont("monospace"));
    tensors_->setItem(row, 0, name);
    tensors_->setItem(row, 1, new NumberItem(QStringLiteral("%L1").arg(t.all.values), static_cast<double>(t.all.values)));
    tensors_->setItem(row, 2, new NumberItem(shareText(t.all.underflowShare()), t.all.underflowShare()));
    tensors_->setItem(row, 3, new NumberItem(shareText(t.recent.underflowShare()), t.recent.underflowShare()));
    tensors_->setItem(row, 4, new NumberItem(shareText(t.all.zeroShare()), t.all.zeroShare()));
    tensors_->setItem(row, 5, new NumberItem(shareText(t.recent.zeroShare()), t.recent.zeroShare()));
    tensors_->setItem(row, 6, new NumberItem(QStringLiteral("%L1").arg(t.all.non_finite), static_cast<double>(t.all.non_finite)));
    tensors_->setItem(row, 7, t.has_bins ? new NumberItem(QStringLiteral("2^%1 … 2^%2").arg(t.smallest_exponent).arg(t.largest_exponent + 1),
                                                          t.smallest_exponent)
                                         : new QTableWidgetItem("–"));
    tensors_->setItem(row, 8, n.suggested_loss_scale > 0 && t.has_bins
                                  ? new NumberItem(shareText(t.underflow_share_at_suggested_scale),
                                                   t.underflow_share_at_suggested_scale)
                                  : new QTableWidgetItem("–"));
  }
  tensors_->setSortingEnabled(true);
  tensors_->sortByColumn(2, Qt::DescendingOrder);
  fitColumns(tensors_);
}

}  // namespace ampscope::gui
