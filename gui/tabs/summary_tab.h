#pragma once
// The first thing a user sees of a run: the device, the device table row the rates and the
// projection use and why, the iterations, how much of the GPU time is on Tensor Cores, the model
// FLOP utilisation, what the input pipeline costs, what AMP could give, where the steady step goes
// (over the trace's window of GPU work when it has no steps, and it says so), and the five changes
// worth most. Runs recorded on the CPU (the trainer's CPU backend) show their host-op time by phase
// instead, say that Tensor Core figures and a measured projection need a GPU run, and show the
// what-if projection's estimate on a GPU, labelled as a model estimate.

#include "gui/run_view.h"

class QChartView;
class QLabel;
class QTableWidget;

namespace ampscope::gui {

class FigureCard;

class SummaryTab : public RunView {
  Q_OBJECT

 public:
  // How many recommendations the summary lists; the Recommendations tab has them all.
  static constexpr int kTopRecommendations = 5;

  explicit SummaryTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

 private:
  void showCards(const analyzer::TraceSummary& summary);
  void showModelCards(const analyzer::TraceSummary& summary);
  void showProjectionCards(const analyzer::TraceSummary& summary);
  void showStepBreakdown(const analyzer::RunAnalysis& run);
  void showTopRecommendations(const analyzer::RunAnalysis& run);
  void clear();

  RunPtr run_;
  QLabel* title_ = nullptr;
  QLabel* cpu_note_ = nullptr;
  FigureCard* device_ = nullptr;
  FigureCard* device_row_ = nullptr;
  FigureCard* iterations_ = nullptr;
  FigureCard* step_ = nullptr;
  FigureCard* tensor_cores_ = nullptr;
  FigureCard* mfu_ = nullptr;
  FigureCard* data_exposure_ = nullptr;
  FigureCard* amp_projection_ = nullptr;
  FigureCard* amp_ceiling_ = nullptr;
  FigureCard* recommendation_count_ = nullptr;
  QChartView* breakdown_view_ = nullptr;
  QLabel* breakdown_note_ = nullptr;
  QTableWidget* top_recommendations_ = nullptr;
  QLabel* recommendations_note_ = nullptr;  // why the table is empty: no rule fired, or only notes
};

}  // namespace ampscope::gui
