#include "gui/tabs/summary_tab.h"

#include <algorithm>
#include <map>

#include <QBarSet>
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QScrollArea>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_table_model.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"

namespace ampscope::gui {

namespace {

constexpr int kCardColumns = 5;
constexpr double kNsPerMs = 1e6;
const char* const kProjectionCaption = "AMP projection";
const char* const kWhatIfCaption = "AMP what-if (model estimate)";

// One segment of the steady step, in nanoseconds per step.
struct StepSegment {
  QString name;
  std::int64_t ns_per_step = 0;
};

// The GPU run's step as the Amdahl projection splits it: math on Tensor Cores, eligible math off
// them, memory-bound and other kernels, copies, and the time the GPU sits idle (host, exposed
// data loading, launch gaps).
std::vector<StepSegment> amdahlSegments(const analyzer::AmdahlProjection& amdahl) {
  std::vector<StepSegment> out;
  for (const analyzer::StepPart& part : amdahl.parts) out.push_back({part.label(), part.ns_per_step});
  return out;
}

// A CPU-recorded run has no GPU parts to project; the analyzer's split of its step by pass still
// tells where the step goes: host ops per pass, the exposed data loading, the rest between ops.
std::vector<StepSegment> passSegments(const std::vector<analyzer::PassPart>& parts) {
  std::vector<StepSegment> out;
  for (const analyzer::PassPart& part : parts) out.push_back({analyzer::passPartLabel(part.kind), part.ns_per_step});
  return out;
}

QString deviceLine(const analyzer::DeviceSummary& d) {
  QStringList parts;
  if (!d.compute_capability.empty()) parts << "compute " + toQString(d.compute_capability);
  if (d.sm_count > 0) parts << QString::number(d.sm_count) + " SMs";
  parts << QStringLiteral("%L1 %2").arg(d.kernels).arg(d.kind == trace::DeviceKind::kCpu ? "host ops" : "kernels");
  return parts.join(" · ");
}

}  // namespace

SummaryTab::SummaryTab(QWidget* parent) : RunView(parent) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(12);

  title_ = makeHeading({}, content);
  title_->setObjectName("runTitle");
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(title_);
  cpu_note_ = makeNote({}, "cpuRunNote", content);
  cpu_note_->setStyleSheet("color: #8a4b08; background: #fff4e0; border: 1px solid #f0c98a; border-radius: 6px; "
                           "padding: 6px 10px;");
  layout->addWidget(cpu_note_);

  auto* cards = new QGridLayout;
  cards->setSpacing(12);
  device_ = new FigureCard("Device", "deviceValue");
  device_row_ = new FigureCard("Device table row", "deviceRowValue");
  iterations_ = new FigureCard("Iterations", "iterationsValue");
  step_ = new FigureCard("Steady step", "stepTimeValue");
  tensor_cores_ = new FigureCard("Tensor Core time", "tensorCoreShareValue");
  mfu_ = new FigureCard("Model FLOP utilisation", "mfuValue");
  data_exposure_ = new FigureCard("Exposed data loading", "dataExposureValue");
  amp_projection_ = new FigureCard(kProjectionCaption, "ampSpeedupValue");
  amp_ceiling_ = new FigureCard("AMP ceiling", "ampCeilingValue");
  recommendation_count_ = new FigureCard("Recommendations", "recommendationCountValue");
  FigureCard* const order[] = {device_, device_row_,     iterations_,     step_,       tensor_cores_,
                               mfu_,    data_exposure_, amp_projection_, amp_ceiling_, recommendation_count_};
  for (int i = 0; i < static_cast<int>(std::size(order)); ++i) {
    cards->addWidget(order[i], i / kCardColumns, i % kCardColumns);
  }
  for (int column = 0; column < kCardColumns; ++column) cards->setColumnStretch(column, 1);
  layout->addLayout(cards);

  breakdown_view_ = makeChartView("Where the steady step goes", "stepBreakdownChart", content);
  breakdown_view_->setMinimumHeight(240);
  layout->addWidget(breakdown_view_);
  breakdown_note_ = makeNote({}, "stepBreakdownNote", content);
  layout->addWidget(breakdown_note_);

  layout->addWidget(makeHeading(QStringLiteral("Top %1 recommendations").arg(kTopRecommendations), content));
  top_recommendations_ = makeTable({"Severity", "Gain / step", "% of step", "Rule", "Target"}, "topRecommendations",
                                   content, {1, 2});
  top_recommendations_->setSortingEnabled(false);  // kept in the analyzer's order: largest gain first
  layout->addWidget(top_recommendations_);
  recommendations_note_ = makeNote({}, "recommendationsNote", content);
  layout->addWidget(recommendations_note_);
  connect(top_recommendations_, &QTableWidget::itemSelectionChanged, this, [this] {
    const QList<QTableWidgetItem*> selected = top_recommendations_->selectedItems();
    if (!run_ || selected.isEmpty()) return;
    const std::size_t row = static_cast<std::size_t>(selected.front()->row());
    if (row >= run_->recommendations.size()) return;
    const QString layer = layerOfRecommendation(run_->summary, run_->recommendations[row]);
    if (!layer.isEmpty()) emit layerSelected(layer);
  });
  layout->addStretch(1);

  setScrollingPage(this, content);
  clear();
}

void SummaryTab::showRun(RunPtr run) {
  run_ = std::move(run);
  if (!run_) {
    clear();
    return;
  }
  const analyzer::TraceSummary& s = run_->summary;
  title_->setText(QStringLiteral("%1  <span style='color:#7b8794; font-weight:normal'>%2</span>")
                      .arg(QFileInfo(toQString(run_->path)).fileName().toHtmlEscaped(),
                           toQString(s.format_detail.empty() ? s.format : s.format_detail).toHtmlEscaped()));
  cpu_note_->setText("Recorded on " + toQString(reports::kCpuRunNote) + ". The chart shows its host ops by pass.");
  cpu_note_->setVisible(s.recorded_on_cpu);
  showCards(s);
  showStepBreakdown(*run_);
  showTopRecommendations(*run_);
}

void SummaryTab::clear() {
  title_->setText("No run loaded");
  cpu_note_->hide();
  for (FigureCard* card : {device_, device_row_, iterations_, step_, tensor_cores_, mfu_, data_exposure_, amp_projection_,
                           amp_ceiling_, recommendation_count_}) {
    card->clear();
  }
  amp_projection_->setCaption(kProjectionCaption);
  resetChart(breakdown_view_, "Where the steady step goes");
  breakdown_view_->hide();
  breakdown_note_->setText("Open a trace (File > Open) to see where its training step goes.");
  top_recommendations_->setRowCount(0);
  recommendations_note_->clear();
  recommendations_note_->hide();
}

void SummaryTab::showCards(const analyzer::TraceSummary& s) {
  // Devices that ran work come first; a trace names idle devices too.
  std::vector<const analyzer::DeviceSummary*> busy;
  for (const analyzer::DeviceSummary& d : s.devices) {
    if (d.kernels > 0) busy.push_back(&d);
  }
  if (busy.empty()) {
    device_->setFigure("–", s.devices.empty() ? "the trace names no device" : "no device ran work");
  } else if (busy.size() == 1) {
    device_->setFigure(toQString(busy.front()->name), deviceLine(*busy.front()));
  } else {
    QStringList names;
    for (const analyzer::DeviceSummary* d : busy) names << toQString(d->name);
    device_->setFigure(QStringLiteral("%1 devices").arg(busy.size()), names.join(", "));
  }

  const analyzer::IterationSummary& it = s.iterations;
  if (it.iterations.empty()) {
    iterations_->setFigure("–", "no training iterations found");
    step_->setFigure("–", "needs iterations");
  } else {
    iterations_->setFigure(QStringLiteral("%L1").arg(it.iterations.size()),
                           QStringLiteral("%1 warm-up, %2 steady · from %3")
                               .arg(it.warmup_count)
                               .arg(it.steadyCount())
                               .arg(toQString(it.source)));
    QString spread = "min " + durationText(it.steady_min_ns) + ", max " + durationText(it.steady_max_ns);
    if (const std::string ahead = reports::hostAheadNote(it); !ahead.empty()) spread += " · " + toQString(ahead);
    step_->setFigure(durationText(it.steady_mean_ns) + " ± " + durationText(it.steady_stddev_ns), spread);
  }

  if (s.recorded_on_cpu) {
    tensor_cores_->setFigure("n/a", "recorded on the CPU: Tensor Core figures need a GPU run");
  } else {
    tensor_cores_->setFigure(percentText(s.tensor_cores.fraction),
                             durationText(s.tensor_cores.time_ns) + " of " + durationText(s.gpu_kernel_time_ns) +
                                 " kernel time");
  }

  const analyzer::DataPipelineExposure& d = s.data_pipeline;
  if (it.steadyCount() == 0) {
    data_exposure_->setFigure("–", "measured per steady iteration: needs iterations");
  } else {
    data_exposure_->setFigure(percentText(d.exposed_fraction),
                              durationText(d.exposed_ns_per_iteration) + " per step (loader " +
                                  durationText(d.loader_ns_per_iteration) + "); hidden: " +
                                  speedupText(d.speedup_if_hidden) + " faster");
  }

  showModelCards(s);
  showProjectionCards(s);
}

void SummaryTab::showModelCards(const analyzer::TraceSummary& s) {
  // The row the rates, the roofline and the projection use, and why that row (the same words as
  // the reports).
  const reports::DeviceWords words = reports::deviceWords(s);
  device_row_->setFigure(toQString(words.row), toQString(words.why));

  const analyzer::OpPerformance& ops = s.op_performance;
  const QString known = QStringLiteral("FLOPs known for %1 of matrix time").arg(percentText(ops.matrix_time_with_known_flops));
  if (ops.model_flop_utilisation) {
    const QString scope = s.amdahl.parts.empty() ? QStringLiteral("per step") : toQString(reports::amdahlScope(s.amdahl));
    mfu_->setFigure(percentText(*ops.model_flop_utilisation),
                    QStringLiteral("%1 %2 against the FP16/BF16 Tensor Core peak; %3")
                        .arg(toQString(reports::formatFlops(ops.flops_per_step)), scope, known));
  } else if (s.recorded_on_cpu) {
    mfu_->setFigure("n/a", ops.flops_per_step > 0
                               ? QStringLiteral("recorded on the CPU: no GPU peak; %1 per step of known work")
                                     .arg(toQString(reports::formatFlops(ops.flops_per_step)))
                               : QStringLiteral("recorded on the CPU: no GPU peak"));
  } else if (!s.device.spec) {
    mfu_->setFigure("n/a", toQString(reports::kDeviceUnknownText));
  } else {
    mfu_->setFigure("n/a", ops.note.empty() ? "no op's FLOPs are known: " + known : toQString(ops.note));
  }
}

void SummaryTab::showProjectionCards(const analyzer::TraceSummary& s) {
  const analyzer::AmdahlProjection& a = s.amdahl;
  amp_projection_->setCaption(kProjectionCaption);
  if (!a.parts.empty()) {
    QString detail = a.replay.done ? "at the host's recorded pace " + speedupText(a.replay.speedup)
                                   : QStringLiteral("on %1 peak rates").arg(toQString(a.device.name));
    // Without steps the projection covers the trace's window of GPU work: say so beside the number.
    if (!a.per_step) detail = toQString(reports::amdahlScope(a)) + "; " + detail;
    amp_projection_->setFigure(speedupText(a.projected_speedup), detail);
    amp_ceiling_->setFigure(speedupText(a.ceiling), "even infinitely fast math gives at most " + speedupText(a.ceiling) +
                                                        (a.per_step ? QString() : QStringLiteral(" over the window")));
    return;
  }
  // No measured projection (a CPU run, or a GPU the table does not know): the what-if projection's
  // estimate on a GPU, where there is one, marked as what it is.
  const analyzer::WhatIfProjection& w = s.what_if;
  if (w.device.spec && w.step_amp_ns > 0) {
    amp_projection_->setCaption(kWhatIfCaption);
    amp_projection_->setFigure(
        speedupText(*w.ampSpeedup()),
        QStringLiteral("model estimate on the %1: FP32 %2 → AMP %3 of GPU work per step; no measured projection: %4")
            .arg(toQString(w.device.spec->name), durationText(static_cast<std::int64_t>(w.step_fp32_ns)),
                 durationText(static_cast<std::int64_t>(w.step_amp_ns)),
                 s.recorded_on_cpu ? QStringLiteral("that needs a GPU run") : toQString(a.note)));
    amp_ceiling_->setFigure("none", "the ceiling needs a measured projection");
    return;
  }
  amp_projection_->setFigure("n/a", toQString(a.note));
  amp_ceiling_->setFigure("none", "no projection, so no ceiling");
}

void SummaryTab::showStepBreakdown(const analyzer::RunAnalysis& run) {
  const analyzer::TraceSummary& s = run.summary;
  // A trace without steps is projected over its window of GPU work: the chart says which it shows.
  const bool window = !s.recorded_on_cpu && !s.amdahl.parts.empty() && !s.amdahl.per_step;
  QChart* chart = resetChart(breakdown_view_, s.recorded_on_cpu ? "Where the steady step goes (host ops by pass)"
                                              : window        ? "Where the trace's window of GPU work goes (no steps found)"
                                                              : "Where the steady step goes");
  // The parts' names are sentences: listed beside the bar they read whole.
  chart->legend()->setAlignment(Qt::AlignRight);
  const std::vector<StepSegment> segments = s.recorded_on_cpu ? passSegments(s.step_by_pass) : amdahlSegments(s.amdahl);
  // An empty plot says nothing the note does not.
  breakdown_view_->setVisible(!segments.empty());
  if (segments.empty()) {
    breakdown_note_->setText(s.amdahl.note.empty() ? QStringLiteral("No steady iterations to break down.")
                                                   : "No step breakdown: " + toQString(s.amdahl.note) + ".");
    return;
  }
  std::int64_t total = 0;
  for (const StepSegment& segment : segments) total += segment.ns_per_step;
  auto* series = new QHorizontalStackedBarSeries;
  series->setObjectName("stepBreakdown");
  series->setBarWidth(0.55);
  int color = 0;
  for (const StepSegment& segment : segments) {
    const double share = total > 0 ? static_cast<double>(segment.ns_per_step) / static_cast<double>(total) : 0.0;
    auto* set = new QBarSet(QStringLiteral("%1  %2 (%3)").arg(segment.name, durationText(segment.ns_per_step),
                                                             percentText(share)));
    set->setColor(seriesColor(color++));
    set->setBorderColor(Qt::white);
    set->append(static_cast<double>(segment.ns_per_step) / kNsPerMs);
    series->append(set);
  }
  chart->addSeries(series);
  auto* steps = new QBarCategoryAxis;
  steps->append(s.recorded_on_cpu ? "host step" : window ? "window" : "steady step");
  steps->setVisible(false);
  auto* ms = new QValueAxis;
  ms->setTitleText(window ? "ms over the trace's window of GPU work" : "ms per steady step");
  ms->setLabelFormat("%.1f");
  ms->setRange(0, static_cast<double>(total) / kNsPerMs);
  ms->applyNiceNumbers();
  ms->setLabelFormat(ms->max() >= 20 ? "%.0f" : "%.1f");
  chart->addAxis(steps, Qt::AlignLeft);
  chart->addAxis(ms, Qt::AlignBottom);
  series->attachAxis(steps);
  series->attachAxis(ms);
  if (s.recorded_on_cpu) {
    breakdown_note_->setText("Host-op time per steady step by pass, the exposed data loading, and the rest of the "
                             "step. Tensor Core math, memory-bound work and a measured AMP projection need a GPU run; "
                             "the AMP card shows the what-if projection's model estimate.");
  } else {
    QStringList speedups;
    for (const analyzer::StepPart& part : s.amdahl.parts) {
      speedups << QString(part.label()) + " " + speedupText(part.speedup);
    }
    const QString scope = window ? QStringLiteral("The trace has no steps: the parts are %1. ")
                                       .arg(toQString(reports::amdahlScope(s.amdahl)))
                                 : QString();
    breakdown_note_->setText(scope + QStringLiteral("Speedup each part is assumed to get under AMP (%1 row of the device table): %2.")
                                         .arg(toQString(s.amdahl.device.name), speedups.join("; ")));
  }
}

void SummaryTab::showTopRecommendations(const analyzer::RunAnalysis& run) {
  // Actions only: findings without an estimated gain are notes (the Recommendations tab lists
  // them). The analyzer orders by gain, so the actions come first.
  const auto first_note = std::find_if(run.recommendations.begin(), run.recommendations.end(), analyzer::isNote);
  const auto actions = static_cast<std::size_t>(first_note - run.recommendations.begin());
  const auto notes = run.recommendations.size() - actions;
  const auto count = std::min<std::size_t>(actions, kTopRecommendations);
  top_recommendations_->setRowCount(static_cast<int>(count));
  for (std::size_t i = 0; i < count; ++i) {
    const analyzer::Recommendation& r = run.recommendations[i];
    const int row = static_cast<int>(i);
    auto* severity = new QTableWidgetItem(analyzer::severityName(r.severity));
    severity->setForeground(severityColor(r.severity));
    QFont bold = severity->font();
    bold.setBold(true);
    severity->setFont(bold);
    top_recommendations_->setItem(row, 0, severity);
    top_recommendations_->setItem(row, 1, new NumberItem(durationText(r.estimated_gain_ns),
                                                         static_cast<double>(r.estimated_gain_ns)));
    top_recommendations_->setItem(row, 2, new NumberItem(percentText(r.estimated_gain_pct / 100.0), r.estimated_gain_pct));
    top_recommendations_->setItem(row, 3, new QTableWidgetItem(toQString(r.rule)));
    auto* target = new QTableWidgetItem(toQString(r.target));
    target->setToolTip(toQString(r.evidence) + "\n\n" + toQString(r.action));
    top_recommendations_->setItem(row, 4, target);
  }
  fitColumns(top_recommendations_);
  fitHeightToRows(top_recommendations_);
  top_recommendations_->setVisible(count > 0);
  const QString notes_text = notes == 1 ? QStringLiteral("1 note") : QStringLiteral("%1 notes").arg(notes);
  if (run.recommendations.empty()) {
    recommendations_note_->setText(QStringLiteral("No rule fired on this run."));
  } else if (actions == 0) {
    recommendations_note_->setText(
        QStringLiteral("Nothing with a gain to claim on this run; the Recommendations tab lists %1 (no gain estimated).")
            .arg(notes_text));
  } else {
    recommendations_note_->setText(notes > 0 ? QStringLiteral("And %1 without an estimated gain in the Recommendations tab.").arg(notes_text)
                                             : QString());
  }
  recommendations_note_->setVisible(!recommendations_note_->text().isEmpty());
  std::map<analyzer::Severity, int> by_severity;
  for (std::size_t i = 0; i < actions; ++i) ++by_severity[run.recommendations[i].severity];
  QStringList counts;
  for (const analyzer::Severity severity : {analyzer::Severity::kHigh, analyzer::Severity::kMedium,
                                            analyzer::Severity::kLow, analyzer::Severity::kInfo}) {
    if (by_severity[severity] > 0) counts << QStringLiteral("%1 %2").arg(by_severity[severity]).arg(analyzer::severityName(severity));
  }
  if (notes > 0) counts << notes_text + QStringLiteral(" (no gain)");
  recommendation_count_->setFigure(QString::number(actions),
                                   counts.isEmpty() ? QStringLiteral("no rule fired") : counts.join(", "));
}

}  // namespace ampscope::gui
