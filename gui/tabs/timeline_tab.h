#pragma once
// The Timeline tab: the run's GPU streams, their launch queue depth and host ranges on one time
// axis (TimelineView) under a small toolbar (fit, zoom in, zoom out, the visible window). Clicking
// an event that belongs to a layer selects that layer (RunView::layerSelected).

#include <memory>

#include "gui/run_view.h"

class QLabel;
class QShowEvent;

namespace ampscope::gui {

class TimelineIndex;
class TimelineView;

class TimelineTab : public RunView {
  Q_OBJECT

 public:
  explicit TimelineTab(QWidget* parent = nullptr);

  // Builds the timeline's index of run (a million events take a fraction of a second) the first
  // time the tab is shown, so a run that is never looked at on the timeline costs nothing.
  void showRun(RunPtr run) override;
  TimelineView* view() const { return view_; }

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void buildIndex();
  void updateWindowLabel(double start_ns, double end_ns);

  TimelineView* view_ = nullptr;
  QLabel* window_label_ = nullptr;
  RunPtr run_;
  bool index_pending_ = false;
};

}  // namespace ampscope::gui
