#pragma once
// How much memory does the run take, when, and what holds it? The primary device's allocated (and
// reserved, where recorded) bytes over time with the steps shaded and the peak marked, beside the
// peak's breakdown by category and by layer and what AMP would do to the peak and the batch
// (analyzer/memory/memory_analysis.h). Clicking the chart shows the totals at that moment and what
// is live then by layer (analyzer::liveByLayerAt).

#include <cstdint>
#include <vector>

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QStackedWidget;
class QTableWidget;

namespace ampscope::gui {

class FigureCard;

class MemoryTab : public RunView {
  Q_OBJECT

 public:
  explicit MemoryTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;
  // What the chart shows at time_ns (the trace's clock): the totals then, their share of the peak,
  // and in the layer table what is live then. Clicking the chart calls it.
  void showMoment(std::int64_t time_ns);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void showMessage(const QString& text);
  void showCards(const analyzer::MemoryAnalysis& memory, const analyzer::DeviceMemory& device);
  void showChart(const analyzer::DeviceMemory& device, const analyzer::IterationSummary& iterations);
  void showBreakdown(const analyzer::DeviceMemory& device);
  void showLayers(const std::vector<analyzer::LayerBytes>& layers, const QString& heading);

  RunPtr run_;
  const analyzer::DeviceMemory* device_ = nullptr;
  double bytes_per_unit_ = 1.0;  // the chart's y unit (MiB or GiB)
  QStackedWidget* pages_ = nullptr;
  QLabel* message_ = nullptr;
  FigureCard* peak_ = nullptr;
  FigureCard* reserved_ = nullptr;
  FigureCard* basis_ = nullptr;
  FigureCard* amp_ = nullptr;
  QChartView* chart_view_ = nullptr;
  QLabel* moment_ = nullptr;
  QTableWidget* categories_ = nullptr;
  QLabel* layers_heading_ = nullptr;
  QTableWidget* layers_ = nullptr;
};

}  // namespace ampscope::gui
