#pragma once
// The look the tabs share, so that they read as one window and agree with report.html: the
// report's palette and severity colours, chart styling, labelled figure cards, and table cells
// that show a formatted number but sort by its value. Numbers are formatted by the reports
// library (durations with units, percentages, speedups), never re-implemented here.

#include <cstdint>
#include <string_view>

#include <QColor>
#include <QFrame>
#include <QString>
#include <QStringList>
#include <QTableWidgetItem>

#include "analyzer/advice/recommendations.h"

class QChart;
class QChartView;
class QLabel;
class QStackedWidget;
class QTableView;
class QTableWidget;

namespace ampscope::gui {

// The i-th colour of the report's categorical palette (wraps around).
QColor seriesColor(int index);
// The badge colour report.html gives a severity.
QColor severityColor(analyzer::Severity severity);

QString toQString(std::string_view text);
QString durationText(std::int64_t ns);  // "812 ns", "41.2 us", "12.34 ms"
QString percentText(double fraction);   // 0.1234 -> "12.3%"
// 1.5 -> "1.50x"; "–" for 0 (one side has no time), "unbounded" for infinity.
QString speedupText(double speedup);

// An antialiased view of an empty chart titled title, named object_name for tests and screenshots.
QChartView* makeChartView(const QString& title, const QString& object_name, QWidget* parent = nullptr);
// Gives view a new empty chart titled title (theme, margins, legend below) and deletes the one it
// showed. Each run gets a fresh chart: in Qt 6.4 the labels of axes removed from a chart that was
// shown stay drawn.
QChart* resetChart(QChartView* view, const QString& title);

// A read-only, row-selecting table with the given column headers, sorting enabled. The headers
// of numeric_columns are right-aligned over their numbers.
QTableWidget* makeTable(const QStringList& headers, const QString& object_name, QWidget* parent = nullptr,
                        const QList<int>& numeric_columns = {});
// Sizes every column but the last to its contents (at most max_width); the last fills the rest.
void fitColumns(QTableView* table, int max_width = 420);
// Makes a short table exactly as tall as its rows, so the page scrolls rather than the table.
void fitHeightToRows(QTableView* table);
// A muted, word-wrapping explanatory line (notes under charts, empty-state messages).
QLabel* makeNote(const QString& text, const QString& object_name, QWidget* parent = nullptr);
// A bold section heading.
QLabel* makeHeading(const QString& text, QWidget* parent = nullptr);
// Adds to pages a page holding one centred message (in place of charts: no run, nothing to
// show), and returns its label, named object_name; margin < 0 keeps the style's margins.
QLabel* addMessagePage(QStackedWidget* pages, const QString& object_name, int margin = 40);
// Makes content the page of tab, scrolling vertically when taller than the tab (the Summary and
// Ranks pages).
void setScrollingPage(QWidget* tab, QWidget* content);

// One labelled figure: a small caption, a large value and a detail line. The value label is named
// object_name and the detail label object_name + "Detail", so tests can read what is shown.
class FigureCard : public QFrame {
 public:
  FigureCard(const QString& caption, const QString& object_name, QWidget* parent = nullptr);
  void setFigure(const QString& value, const QString& detail = {});
  // What the figure is, when that depends on the run (a measured projection or an estimate); the
  // caption label is named object_name + "Caption".
  void setCaption(const QString& caption);
  QString caption() const;
  void clear() { setFigure("–"); }
  QString value() const;
  QString detail() const;

 private:
  QLabel* caption_ = nullptr;
  QLabel* value_ = nullptr;
  QLabel* detail_ = nullptr;
};

// A table cell showing text (a formatted number with its unit) that sorts by value, right-aligned
// so that the digits of a column line up.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value);
  bool operator<(const QTableWidgetItem& other) const override;
};

}  // namespace ampscope::gui
