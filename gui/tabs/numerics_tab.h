#pragma once
// Is the loss scaling healthy? The trainer's per-step counters (docs/profile_database.md: loss,
// loss_scale, skipped_step) drawn over the steps — the loss scale on a log axis with the skipped
// steps marked on it, the loss below — beside the summary's AMP numerics, and per parameter
// tensor the share of gradient values FP16 rounds to zero at the recorded scale. Traces from other
// tools carry no such counters; the tab says so instead of drawing empty charts.

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QStackedWidget;
class QTableWidget;

namespace ampscope::gui {

class FigureCard;

class NumericsTab : public RunView {
  Q_OBJECT

 public:
  explicit NumericsTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

 private:
  void showCards(const analyzer::AmpNumerics& numerics);
  void showCharts(const trace::Trace& trace);
  void showTensors(const analyzer::AmpNumerics& numerics);
  void showMessage(const QString& text);

  QStackedWidget* pages_ = nullptr;
  QLabel* message_ = nullptr;
  FigureCard* loss_ = nullptr;
  FigureCard* loss_scale_ = nullptr;
  FigureCard* skipped_ = nullptr;
  FigureCard* headroom_ = nullptr;
  QChartView* scale_view_ = nullptr;
  QChartView* loss_view_ = nullptr;
  QLabel* tensors_note_ = nullptr;
  QTableWidget* tensors_ = nullptr;
};

}  // namespace ampscope::gui
