#include "gui/tabs/timeline_tab.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include "gui/timeline/timeline_index.h"
#include "gui/timeline/timeline_view.h"

namespace ampscope::gui {

TimelineTab::TimelineTab(QWidget* parent) : RunView(parent), view_(new TimelineView) {
  auto* fit = new QToolButton;
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Show the whole trace (Home or 0)"));
  auto* zoom_in = new QToolButton;
  zoom_in->setText(tr("Zoom in"));
  zoom_in->setToolTip(tr("Zoom in around the middle (+ or W; the mouse wheel zooms around the cursor)"));
  auto* zoom_out = new QToolButton;
  zoom_out->setText(tr("Zoom out"));
  zoom_out->setToolTip(tr("Zoom out (- or S)"));
  window_label_ = new QLabel;
  window_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* hint = new QLabel(tr("wheel: zoom · drag: pan · Shift+wheel: scroll lanes · click: select layer"));
  hint->setEnabled(false);

  auto* toolbar = new QHBoxLayout;
  toolbar->addWidget(fit);
  toolbar->addWidget(zoom_in);
  toolbar->addWidget(zoom_out);
  toolbar->addSpacing(12);
  toolbar->addWidget(window_label_);
  toolbar->addStretch(1);
  toolbar->addWidget(hint);
  // Lanes of deeply nested ranges overflow the view; the bar shows where one is and how much more.
  auto* lanes_bar = new QScrollBar(Qt::Vertical);
  lanes_bar->setVisible(false);
  auto* body = new QHBoxLayout;
  body->setSpacing(0);
  body->addWidget(view_, 1);
  body->addWidget(lanes_bar);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(toolbar);
  layout->addLayout(body, 1);

  connect(fit, &QToolButton::clicked, view_, &TimelineView::fitAll);
  connect(zoom_in, &QToolButton::clicked, view_, &TimelineView::zoomIn);
  connect(zoom_out, &QToolButton::clicked, view_, &TimelineView::zoomOut);
  connect(view_, &TimelineView::windowChanged, this, &TimelineTab::updateWindowLabel);
  connect(view_, &TimelineView::layerSelected, this, &RunView::layerSelected);
  connect(view_, &TimelineView::scrollChanged, lanes_bar, [lanes_bar](int y, int maximum, int page) {
    const QSignalBlocker quiet(lanes_bar);  // the view already shows y
    lanes_bar->setRange(0, maximum);
    lanes_bar->setPageStep(page);
    lanes_bar->setSingleStep(TimelinePainter::kRowHeight);
    lanes_bar->setValue(y);
    lanes_bar->setVisible(maximum > 0);
  });
  connect(lanes_bar, &QScrollBar::valueChanged, view_, &TimelineView::setScrollY);
  updateWindowLabel(view_->windowStartNs(), view_->windowEndNs());
}

void TimelineTab::showRun(RunPtr run) {
  run_ = std::move(run);
  index_pending_ = run_ != nullptr;
  if (!run_) {
    view_->setIndex(nullptr);
  } else if (isVisible()) {
    buildIndex();
  }
  updateWindowLabel(view_->windowStartNs(), view_->windowEndNs());
}

void TimelineTab::showEvent(QShowEvent* event) {
  RunView::showEvent(event);
  if (index_pending_) buildIndex();
}

void TimelineTab::buildIndex() {
  index_pending_ = false;
  // The index shares ownership of the run through its trace and its launch queue (the analysis's,
  // drawn as counter lanes), so the run outlives the view's use.
  view_->setIndex(std::make_shared<const TimelineIndex>(
      std::shared_ptr<const trace::Trace>(run_, &run_->trace),
      std::shared_ptr<const analyzer::LaunchQueue>(run_, &run_->summary.launch_queue)));
  updateWindowLabel(view_->windowStartNs(), view_->windowEndNs());
}

void TimelineTab::updateWindowLabel(double start_ns, double end_ns) {
  if (!run_) {
    window_label_->setText(tr("No run loaded"));
    return;
  }
  if (index_pending_) {
    window_label_->clear();
    return;
  }
  window_label_->setText(tr("%1 – %2 (%3 shown)")
                             .arg(QString::fromStdString(formatDurationNs(start_ns)),
                                  QString::fromStdString(formatDurationNs(end_ns)),
                                  QString::fromStdString(formatDurationNs(end_ns - start_ns))));
}

}  // namespace ampscope::gui
