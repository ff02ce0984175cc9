#include "gui/tabs/chart_style.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QLegend>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include "reports/report_file.h"

namespace ampscope::gui {

namespace {

// Tableau 10, the palette of report.html's charts.
constexpr std::array<QRgb, 10> kPalette = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};

}  // namespace

QColor seriesColor(int index) {
  const auto size = static_cast<int>(kPalette.size());
  return QColor(kPalette[static_cast<std::size_t>(((index % size) + size) % size)]);
}

QColor severityColor(analyzer::Severity severity) {
  switch (severity) {
    case analyzer::Severity::kHigh: return QColor(0xd64545);
    case analyzer::Severity::kMedium: return QColor(0xe8863a);
    case analyzer::Severity::kLow: return QColor(0x5b8def);
    case analyzer::Severity::kInfo: break;
  }
  return QColor(0x8a99a8);
}

QString toQString(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString durationText(std::int64_t ns) { return toQString(reports::formatDuration(ns)); }

QString percentText(double fraction) { return toQString(reports::formatPercent(fraction)); }

QString speedupText(double speedup) {
  if (std::isfinite(speedup) && speedup <= 0.0) return QStringLiteral("–");
  return toQString(reports::formatSpeedup(speedup));
}

namespace {

void styleChart(QChart* chart, const QString& title) {
  chart->setTheme(QChart::ChartThemeLight);
  chart->setTitle(title);
  QFont title_font = chart->titleFont();
  title_font.setBold(true);
  title_font.setPointSizeF(title_font.pointSizeF() * 1.1);
  chart->setTitleFont(title_font);
  chart->setBackgroundRoundness(0);
  chart->setDropShadowEnabled(false);
  chart->setMargins(QMargins(6, 6, 6, 6));
  // Animations would make a freshly shown run look unsettled and slow tests' grabs.
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
}

QChart* styledChart(const QString& title) {
  auto* chart = new QChart;
  styleChart(chart, title);
  return chart;
}

}  // namespace

QChartView* makeChartView(const QString& title, const QString& object_name, QWidget* parent) {
  auto* view = new QChartView(styledChart(title), parent);
  view->setObjectName(object_name);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(220);
  return view;
}

QChart* resetChart(QChartView* view, const QString& title) {
  QChart* old = view->chart();
  QChart* chart = styledChart(title);
  view->setChart(chart);  // releases old to us
  delete old;
  return chart;
}

void fitColumns(QTableView* table, int max_width) {
  const int last = table->model() ? table->model()->columnCount() - 1 : -1;
  for (int column = 0; column < last; ++column) {
    table->resizeColumnToContents(column);
    table->setColumnWidth(column, std::min(table->columnWidth(column), max_width));
  }
}

void fitHeightToRows(QTableView* table) {
  int height = table->horizontalHeader()->sizeHint().height() + 2 * table->frameWidth();
  const int rows = table->model() ? table->model()->rowCount() : 0;
  for (int row = 0; row < rows; ++row) height += table->rowHeight(row);
  table->setFixedHeight(height);
}

QTableWidget* makeTable(const QStringList& headers, const QString& object_name, QWidget* parent,
                        const QList<int>& numeric_columns) {
  auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
  table->setObjectName(object_name);
  table->setHorizontalHeaderLabels(headers);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setAlternatingRowColors(true);
  table->setSortingEnabled(true);
  table->verticalHeader()->setVisible(false);
  // Denser than Qt's default rows: tables of figures read better with more of them in view.
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 10);
  table->horizontalHeader()->setStretchLastSection(true);
  table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  for (const int column : numeric_columns) {
    table->horizontalHeaderItem(column)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  return table;
}

QLabel* makeNote(const QString& text, const QString& object_name, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setObjectName(object_name);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setStyleSheet("color: #52606d;");
  return label;
}

QLabel* addMessagePage(QStackedWidget* pages, const QString& object_name, int margin) {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  if (margin >= 0) layout->setContentsMargins(margin, margin, margin, margin);
  QLabel* message = makeNote({}, object_name, page);
  message->setAlignment(Qt::AlignCenter);
  layout->addStretch(1);
  layout->addWidget(message);
  layout->addStretch(2);
  pages->addWidget(page);
  return message;
}

QLabel* makeHeading(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.15);
  label->setFont(font);
  return label;
}

FigureCard::FigureCard(const QString& caption, const QString& object_name, QWidget* parent) : QFrame(parent) {
  // Styled through the frame's own name so the sheet does not leak into the labels' children.
  setObjectName(object_name + "Card");
  setStyleSheet(QStringLiteral("QFrame#%1 { background: white; border: 1px solid #dde3ea; border-radius: 8px; }")
                    .arg(objectName()));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(14, 10, 14, 10);
  layout->setSpacing(2);
  caption_ = new QLabel(caption.toUpper(), this);
  caption_->setObjectName(object_name + "Caption");
  caption_->setStyleSheet("color: #52606d; font-size: 11px; letter-spacing: 1px;");
  value_ = new QLabel(this);
  value_->setObjectName(object_name);
  QFont value_font = value_->font();
  value_font.setPointSizeF(value_font.pointSizeF() * 1.6);
  value_font.setWeight(QFont::DemiBold);
  value_->setFont(value_font);
  // A long value (a device name, "none (recorded on the CPU)") wraps rather than widening its
  // column of cards past the window.
  value_->setWordWrap(true);
  value_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  detail_ = makeNote({}, object_name + "Detail", this);
  detail_->setStyleSheet("color: #52606d; font-size: 11px;");
  layout->addWidget(caption_);
  layout->addWidget(value_);
  layout->addWidget(detail_);
  layout->addStretch(1);
  clear();
}

void FigureCard::setFigure(const QString& value, const QString& detail) {
  value_->setText(value);
  detail_->setText(detail);
  detail_->setVisible(!detail.isEmpty());
}

void FigureCard::setCaption(const QString& caption) { caption_->setText(caption.toUpper()); }

QString FigureCard::caption() const { return caption_->text(); }

QString FigureCard::value() const { return value_->text(); }

QString FigureCard::detail() const { return detail_->text(); }

NumberItem::NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
  setData(Qt::UserRole, value);
  setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
}

bool NumberItem::operator<(const QTableWidgetItem& other) const {
  const QVariant theirs = other.data(Qt::UserRole);
  if (!theirs.isValid()) return QTableWidgetItem::operator<(other);
  return data(Qt::UserRole).toDouble() < theirs.toDouble();
}

void setScrollingPage(QWidget* tab, QWidget* content) {
  auto* scroll = new QScrollArea(tab);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(tab);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
}

}  // namespace ampscope::gui
