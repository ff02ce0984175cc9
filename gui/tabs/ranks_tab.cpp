#include "gui/tabs/ranks_tab.h"

#include <algorithm>
#include <array>
#include <optional>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QTableView>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "gui/tabs/chart_style.h"
#include "gui/tabs/recommendations_table_model.h"
#include "gui/timeline/timeline_painter.h"
#include "reports/job_rows.h"

namespace ampscope::gui {

namespace {

constexpr double kNsPerMs = 1e6;
constexpr int kBarHeightPx = 30;  // per rank: the chart grows with the job so labels never overlap
const char* const kChartTitle = "Where each rank's steady step goes";

// The four parts of a rank's steady step, which add up to it (analyzer/steps/step_split.h), in the
// timeline's colours so that a rank's communication reads the same in both views.
struct StepPart {
  const char* name;
  std::int64_t analyzer::RankRow::*ns;
  QColor color;
};

const std::array<StepPart, 4>& stepParts() {
  static const std::array<StepPart, 4> parts = {{
      {"compute", &analyzer::RankRow::compute_ns, TimelinePainter::colorOf(TimelineStyle::kKernel, 0)},
      {"exposed communication", &analyzer::RankRow::exposed_communication_ns,
       TimelinePainter::colorOf(TimelineStyle::kCommunicationKernel, 0)},
      {"data loading", &analyzer::RankRow::data_ns, TimelinePainter::colorOf(TimelineStyle::kRangeData, 0)},
      {"idle", &analyzer::RankRow::idle_ns, seriesColor(9)},
  }};
  return parts;
}

// "data_loading" -> "data loading": the enum's name, read as words.
QString words(const char* name) { return QString::fromLatin1(name).replace('_', ' '); }

bool isSlowest(const analyzer::JobAnalysis& job, const analyzer::RankRow& row) {
  return job.slowest_rank && *job.slowest_rank == row.rank;
}

QString rankList(const std::vector<std::int32_t>& ranks) {
  QStringList out;
  for (const std::int32_t rank : ranks) out << QString::number(rank);
  return out.join(", ");
}

}  // namespace

QString RanksTab::rankLabel(const analyzer::JobAnalysis& job, const analyzer::RankRow& row) {
  QStringList marks;
  if (isSlowest(job, row)) marks << "slowest";
  if (row.straggler) marks << "straggler";
  const QString name = QStringLiteral("rank %1").arg(row.rank);
  return marks.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, marks.join(", "));
}

RanksTab::RanksTab(QWidget* parent) : QWidget(parent) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(12);

  title_ = makeHeading({}, content);
  title_->setObjectName("jobTitle");
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(title_);

  // Without a job the cards would only show dashes: they go with the job.
  cards_ = new QWidget(content);
  auto* cards = new QGridLayout(cards_);
  cards->setContentsMargins(0, 0, 0, 0);
  cards->setSpacing(12);
  ranks_card_ = new FigureCard("Ranks", "rankCountValue");
  slowest_card_ = new FigureCard("Slowest rank", "slowestRankValue");
  imbalance_card_ = new FigureCard("Imbalance (max / mean busy)", "imbalanceValue");
  stragglers_card_ = new FigureCard("Stragglers", "stragglersValue");
  int column = 0;
  for (FigureCard* card : {ranks_card_, slowest_card_, imbalance_card_, stragglers_card_}) {
    cards->addWidget(card, 0, column);
    cards->setColumnStretch(column++, 1);
  }
  layout->addWidget(cards_);
  why_ = makeNote({}, "slowestWhy", content);
  layout->addWidget(why_);
  waits_ = makeNote({}, "collectiveWaits", content);
  layout->addWidget(waits_);
  notes_ = makeNote({}, "jobNotes", content);
  layout->addWidget(notes_);

  chart_view_ = makeChartView(kChartTitle, "rankStepsChart", content);
  layout->addWidget(chart_view_);
  open_hint_ = makeNote({}, "openRankHint", content);
  layout->addWidget(open_hint_);

  QStringList headers(kColumnCount);
  headers[kRank] = "Rank";
  headers[kStep] = "Step";
  headers[kCompute] = "Compute";
  headers[kExposed] = "Exposed comm.";
  headers[kWait] = "Wait";
  headers[kData] = "Data";
  headers[kIdle] = "Idle";
  headers[kBusy] = "Busy";
  headers[kLate] = "Held up";
  headers[kStraggler] = "Straggler";
  headers[kTensorCores] = "Tensor Cores";
  headers[kAmp] = "AMP projected";
  headers[kTf32] = "TF32";
  headers[kFindings] = "Largest findings";
  headers[kDevice] = "Device";
  headers[kSource] = "Source";
  table_ = makeTable(headers, "ranksTable", content,
                     {kRank, kStep, kCompute, kExposed, kWait, kData, kIdle, kBusy, kLate, kTensorCores, kAmp, kTf32});
  layout->addWidget(table_);
  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    if (selected.isEmpty()) return;
    const QTableWidgetItem* rank = table_->item(selected.front()->row(), kRank);
    if (rank) emit rankActivated(rank->data(kRankRole).toInt());
  });

  advice_heading_ = makeHeading("What to change", content);
  layout->addWidget(advice_heading_);
  advice_model_ = new RecommendationsTableModel(this);
  advice_ = new QTableView(content);
  advice_->setObjectName("jobRecommendations");
  advice_->setModel(advice_model_);
  advice_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  advice_->setWordWrap(false);
  advice_->setAlternatingRowColors(true);
  advice_->verticalHeader()->setVisible(false);
  advice_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(advice_);
  layout->addStretch(1);

  setScrollingPage(this, content);
  clear();
}

void RanksTab::showJob(JobPtr job) {
  job_ = std::move(job);
  open_rank_.reset();
  if (!job_) {
    clear();
    return;
  }
  const analyzer::JobAnalysis& j = *job_;
  title_->setText(QStringLiteral("Distributed job  <span style='color:#7b8794; font-weight:normal'>%1 ranks, world "
                                 "size %2</span>")
                      .arg(j.ranks.size())
                      .arg(j.world_size));
  cards_->show();
  showCards(j);
  showNotes(j);
  showChart(j);
  showTable(j);
  advice_model_->setRecommendations(j.recommendations);
  advice_heading_->setVisible(!j.recommendations.empty());
  advice_->setVisible(!j.recommendations.empty());
  fitColumns(advice_);
  fitHeightToRows(advice_);
  showOpenRank();
}

void RanksTab::setOpenRank(std::optional<std::int32_t> rank) {
  open_rank_ = rank;
  showOpenRank();
}

void RanksTab::clear() {
  title_->setText("No job loaded");
  for (FigureCard* card : {ranks_card_, slowest_card_, imbalance_card_, stragglers_card_}) card->clear();
  cards_->hide();
  why_->setText("Open a job to compare its ranks: a folder of their traces (File > Open folder of ranks), several "
                "trace files, or one trace of several processes.");
  notes_->hide();
  waits_->hide();
  resetChart(chart_view_, kChartTitle);
  chart_view_->hide();
  open_hint_->hide();
  table_->setRowCount(0);
  table_->hide();
  advice_model_->setRecommendations({});
  advice_heading_->hide();
  advice_->hide();
}

void RanksTab::showCards(const analyzer::JobAnalysis& job) {
  ranks_card_->setFigure(QString::number(job.ranks.size()),
                         QStringLiteral("world size %1 · %2 step(s) every rank ran")
                             .arg(job.world_size)
                             .arg(job.steps.size()));
  if (job.slowest_rank) {
    slowest_card_->setFigure(QStringLiteral("rank %1").arg(*job.slowest_rank),
                             job.slowest_reason == analyzer::SlowReason::kNone
                                 ? QStringLiteral("the ranks are even")
                                 : "held by " + words(analyzer::slowReasonName(job.slowest_reason)));
  } else {
    slowest_card_->setFigure("none", "one rank: nothing to compare");
  }
  imbalance_card_->setFigure(speedupText(job.imbalance), "1.00x: every rank equally busy");
  stragglers_card_->setFigure(job.stragglers.empty() ? QStringLiteral("none") : QString::number(job.stragglers.size()),
                              QString(job.slowest_basis == analyzer::SlowestBasis::kArrivals
                                          ? "%1holding collectives up over %2 of a step"
                                          : "%1busy over %2 above the median rank")
                                  .arg(job.stragglers.empty() ? QString() : "rank " + rankList(job.stragglers) + ": ")
                                  .arg(percentText(analyzer::kStragglerMargin)));
}

void RanksTab::showNotes(const analyzer::JobAnalysis& job) {
  why_->setText(job.slowest_why.empty() ? QStringLiteral("No rank is slowest.") : toQString(job.slowest_why));
  QStringList notes;
  for (const std::string& note : job.notes) notes << toQString(note);
  notes_->setText("Notes: " + notes.join("; ") + ".");
  notes_->setVisible(!notes.isEmpty());
  QStringList waits;
  for (const analyzer::CollectiveWait& w : job.collective_waits) {
    waits << QStringLiteral("rank %1 at %2 of %3 %4%5 (the others wait %6 per step)")
                 .arg(w.last_rank)
                 .arg(w.last_rank_calls)
                 .arg(w.calls)
                 .arg(toQString(analyzer::collectiveKindName(w.kind)))
                 .arg(w.group.empty() ? QString() : " in group " + toQString(w.group))
                 .arg(durationText(w.wait_ns));
  }
  waits_->setText("Last to arrive at the collectives: " + waits.join("; ") + ".");
  waits_->setVisible(!waits.isEmpty());
}

void RanksTab::showChart(const analyzer::JobAnalysis& job) {
  QChart* chart = resetChart(chart_view_, kChartTitle);
  const auto count = static_cast<int>(job.ranks.size());
  chart_view_->setMinimumHeight(std::max(260, 110 + kBarHeightPx * count));
  chart_view_->setVisible(count > 0);
  auto* series = new QHorizontalStackedBarSeries;
  series->setObjectName("rankSteps");
  series->setBarWidth(0.7);
  // The chart draws its first category at the bottom: ranks go in reverse so rank 0 is on top.
  QStringList categories;
  for (auto row = job.ranks.rbegin(); row != job.ranks.rend(); ++row) categories << rankLabel(job, *row);
  std::int64_t longest = 0;
  for (const analyzer::RankRow& row : job.ranks) longest = std::max(longest, row.steady_step_ns);
  for (const StepPart& part : stepParts()) {
    auto* set = new QBarSet(part.name);
    set->setColor(part.color);
    set->setBorderColor(Qt::white);
    // The slowest rank's bar in deeper shades: its label names it too.
    set->setSelectedColor(part.color.darker(140));
    for (int i = 0; i < count; ++i) {
      const analyzer::RankRow& row = job.ranks[static_cast<std::size_t>(count - 1 - i)];
      set->append(static_cast<double>(row.*part.ns) / kNsPerMs);
      if (isSlowest(job, row)) set->selectBar(i);
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* ranks = new QBarCategoryAxis;
  ranks->append(categories);
  auto* ms = new QValueAxis;
  // A rank whose trace has no steps is measured over its window of GPU work (the notes say so).
  const bool windows = std::any_of(job.ranks.begin(), job.ranks.end(),
                                   [](const analyzer::RankRow& row) { return row.steady_steps == 0; });
  ms->setTitleText(windows ? "ms per steady step (a rank without steps: over its window of GPU work)"
                           : "ms per steady step");
  ms->setRange(0, static_cast<double>(longest) / kNsPerMs);
  ms->applyNiceNumbers();
  ms->setLabelFormat(ms->max() >= 20 ? "%.0f" : "%.1f");
  chart->addAxis(ranks, Qt::AlignLeft);
  chart->addAxis(ms, Qt::AlignBottom);
  series->attachAxis(ranks);
  series->attachAxis(ms);
  connect(series, &QAbstractBarSeries::clicked, this, [this, count](int index, QBarSet*) {
    if (!job_ || index < 0 || index >= count) return;
    emit rankActivated(job_->ranks[static_cast<std::size_t>(count - 1 - index)].rank);
  });
}

void RanksTab::showTable(const analyzer::JobAnalysis& job) {
  const QSignalBlocker quiet(table_);  // filling is not the user picking a rank
  table_->setSortingEnabled(false);    // rows would move while they are filled
  table_->setRowCount(static_cast<int>(job.ranks.size()));
  const auto duration = [](std::int64_t ns) { return new NumberItem(durationText(ns), static_cast<double>(ns)); };
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const analyzer::RankRow& r = job.ranks[i];
    const int row = static_cast<int>(i);
    auto* rank = new NumberItem(rankLabel(job, r), r.rank);
    rank->setData(kRankRole, r.rank);
    if (isSlowest(job, r) || r.straggler) {
      QFont bold = rank->font();
      bold.setBold(true);
      rank->setFont(bold);
      rank->setForeground(severityColor(analyzer::Severity::kHigh));
    }
    table_->setItem(row, kRank, rank);
    auto* step = duration(r.steady_step_ns);
    step->setToolTip(r.steady_steps == 0
                         ? QStringLiteral("no steps: over its window of GPU work")
                         : QStringLiteral("mean of %1 steady step(s) of %2").arg(r.steady_steps).arg(r.steps));
    table_->setItem(row, kStep, step);
    table_->setItem(row, kCompute, duration(r.compute_ns));
    table_->setItem(row, kExposed, duration(r.exposed_communication_ns));
    const auto durationOrUnknown = [&](const std::optional<std::int64_t>& ns) -> QTableWidgetItem* {
      if (ns) return duration(*ns);
      auto* unknown = new NumberItem("–", -1.0);
      unknown->setToolTip("its collectives could not be matched with the other ranks'");
      return unknown;
    };
    table_->setItem(row, kWait, durationOrUnknown(r.wait_ns));
    table_->setItem(row, kLate, durationOrUnknown(r.late_ns));
    table_->setItem(row, kData, duration(r.data_ns));
    table_->setItem(row, kIdle, duration(r.idle_ns));
    table_->setItem(row, kBusy, duration(r.busy_ns));
    table_->setItem(row, kStraggler, new QTableWidgetItem(r.straggler ? "yes" : "no"));
    if (i < job.rank_results.size()) showFindings(row, job.rank_results[i].findings);
    table_->setItem(row, kDevice, new QTableWidgetItem(toQString(r.device)));
    auto* source = new QTableWidgetItem(QFileInfo(toQString(r.source)).fileName());
    source->setToolTip(QStringLiteral("%1\nrank from %2; clock: %3, offset %4")
                           .arg(toQString(r.source), words(analyzer::rankOriginName(r.origin)),
                                words(analyzer::clockAlignmentName(r.alignment)), durationText(r.clock_offset_ns)));
    table_->setItem(row, kSource, source);
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(kRank, Qt::AscendingOrder);
  fitColumns(table_);
  fitHeightToRows(table_);
  table_->setVisible(!job.ranks.empty());
}

void RanksTab::showFindings(int row, const analyzer::RankFindings& f) {
  // Unknown sorts below every figure.
  const auto figure = [](const QString& text, const std::optional<double>& value, const QString& unknown_why) {
    auto* item = new NumberItem(value ? text : QStringLiteral("–"), value.value_or(-1.0));
    if (!value) item->setToolTip(unknown_why);
    return item;
  };
  table_->setItem(row, kTensorCores,
                  figure(f.tensor_core_share ? percentText(*f.tensor_core_share) : QString(), f.tensor_core_share,
                         "a CPU run: Tensor Cores do not apply"));
  auto* amp = figure(toQString(reports::ampProjectionText(f)), f.amp_projected_speedup, toQString(f.amp_note));
  if (f.amp_projected_speedup) {
    // The host's pace is said only where the rank's replay gave it.
    const QString pace = f.amp_reachable_speedup
                             ? QStringLiteral(", %1 at the host's pace").arg(speedupText(*f.amp_reachable_speedup))
                             : QString();
    amp->setToolTip(QStringLiteral("AMP on %1: %2 projected%3%4")
                        .arg(toQString(f.amp_device), speedupText(*f.amp_projected_speedup), pace,
                             f.amp_note.empty() ? QString() : "; " + toQString(f.amp_note)));
  }
  table_->setItem(row, kAmp, amp);
  table_->setItem(row, kTf32,
                  figure(toQString(reports::tf32ProjectionText(f)), f.tf32_projected_speedup,
                         "not relevant: no FP32 matrix math on CUDA cores, or a GPU without TF32 Tensor Cores"));
  auto* findings = new QTableWidgetItem(toQString(reports::topFindingsText(f)));
  QStringList all;
  for (const analyzer::Recommendation& r : f.recommendations) {
    all << QStringLiteral("%1 %2: %3 (%4)")
               .arg(toQString(r.rule), toQString(r.target), durationText(r.estimated_gain_ns),
                    percentText(r.estimated_gain_pct / 100.0));
  }
  findings->setToolTip(all.join("\n"));
  table_->setItem(row, kFindings, findings);
}

void RanksTab::showOpenRank() {
  open_hint_->setVisible(job_ != nullptr);
  open_hint_->setText(open_rank_ ? QStringLiteral("Rank %1 is open in the other tabs. Click a rank's bar or row to "
                                                  "open its complete analysis.")
                                       .arg(*open_rank_)
                                 : QStringLiteral("Click a rank's bar or row to open its complete analysis in the "
                                                  "other tabs."));
  const QSignalBlocker quiet(table_);  // marking the open rank is not the user picking it
  table_->clearSelection();
  for (int row = 0; open_rank_ && row < table_->rowCount(); ++row) {
    const QTableWidgetItem* rank = table_->item(row, kRank);
    if (rank && rank->data(kRankRole).toInt() == *open_rank_) table_->selectRow(row);
  }
}

}  // namespace ampscope::gui
