#pragma once
// The run's ops on the roofline of the device they ran on: x the arithmetic intensity (FLOP/byte),
// y the achieved TFLOP/s, both on log axes; one dot per op call shape with both figures, a series
// per precision, sized by its time; the device's memory roof (a slope at its DRAM bandwidth) and
// its flat peaks for FP32, TF32 and FP16/BF16 where it has them. Hovering a dot names the op, its
// shapes, layer, time, achieved and peak rate, bound and AMP prediction; clicking selects its row
// in the table below, which lists every op of the per-op model (TraceSummary::op_performance),
// placed or not. Where no op can be placed (a CPU run, an unknown device, no shapes), a line
// says why instead of an empty chart. Everything drawn comes from the analysis; the tab computes
// no rate.

#include <QHash>
#include <QString>
#include <QVector>

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QLineEdit;
class QScatterSeries;
class QTableView;

namespace ampscope::gui {

class OpPerformanceModel;
class TableFilterProxy;

class RooflineTab : public RunView {
  Q_OBJECT

 public:
  explicit RooflineTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

  // The model row of a dot (tests, tooltips); -1 when the series has no such point.
  int rowOfPoint(const QScatterSeries* series, int point) const;
  // The tooltip a dot shows.
  QString pointToolTip(const QScatterSeries* series, int point) const;

 private:
  void drawChart();
  QString whyNoPoints() const;
  void selectModelRow(int row);
  int pointAt(const QScatterSeries* series, const QPointF& value) const;

  RunPtr run_;
  OpPerformanceModel* model_ = nullptr;
  TableFilterProxy* proxy_ = nullptr;
  QLabel* heading_ = nullptr;
  QLabel* note_ = nullptr;
  QChartView* chart_view_ = nullptr;
  QLabel* empty_note_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTableView* table_ = nullptr;
  // Per dot series: the model row of each of its points, in point order.
  QHash<const QScatterSeries*, QVector<int>> rows_of_points_;
};

}  // namespace ampscope::gui
