#pragma once
// The timeline widget: GPU streams and host threads' ranges on one time axis. The mouse wheel
// zooms around the cursor (Shift+wheel scrolls the lanes), dragging pans; keys: +/- (or W/S)
// zoom, Left/Right (or A/D) pan, Up/Down/PageUp/PageDown scroll the lanes, Home or 0 fits the
// whole trace. Clicking an event highlights it and, when it belongs to a layer, emits
// layerSelected; hovering shows its name, duration and layer, and over a queue depth lane the
// depth at the cursor. Drawing is TimelinePainter's, so
// renderFrame() gives the benchmark exactly what paintEvent() shows.

#include <memory>

#include <QImage>
#include <QPoint>
#include <QString>
#include <QWidget>

#include "gui/timeline/timeline_index.h"
#include "gui/timeline/timeline_painter.h"

namespace ampscope::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  // Shows index (nullptr: nothing) with the whole trace fitted and nothing selected.
  void setIndex(std::shared_ptr<const TimelineIndex> index);
  const TimelineIndex* index() const { return painter_.index(); }

  // The visible window in ns after the trace's first event (TimelineIndex::startNs()).
  double windowStartNs() const { return start_ns_; }
  double windowEndNs() const { return end_ns_; }
  // Shows [start_ns, end_ns), kept to a span between 100 ns and a little more than the trace
  // and to a window that overlaps it.
  void setWindow(double start_ns, double end_ns);
  void fitAll();
  // Scales the span by factor (< 1 zooms in) keeping the time at widget x where it is.
  void zoomAt(double factor, double x);
  void zoomIn();   // around the middle of the plot
  void zoomOut();
  // Moves the window right by dx pixels' worth of time and the lanes up by dy pixels.
  void panByPixels(double dx, int dy);
  // Scrolls the lanes up by y pixels (kept between 0 and what the lanes overflow by).
  void setScrollY(int y);
  int scrollY() const { return scroll_y_; }

  // Widget geometry, for tests and for callers that place things on the timeline.
  double timeAtX(double x) const;    // ns after the trace's first event
  double xAtTime(double ns) const;
  std::int32_t rowAtY(int y) const;  // -1 off the rows
  int rowCenterY(std::int32_t row) const;
  TimelineHit hitAt(const QPoint& pos) const;
  // What hovering at pos shows: the event's description, or a counter lane's value in the pixel
  // under the cursor; empty where there is neither.
  QString toolTipAt(const QPoint& pos) const;

  TimelineHit selection() const { return selected_; }
  // Highlights hit (invalid: clears) and emits layerSelected when its event has a layer.
  void select(TimelineHit hit);

  // Renders the current window into image, at the image's size, with the code paintEvent uses.
  TimelineFrameStats renderFrame(QImage& image);
  const TimelineFrameStats& lastFrameStats() const { return last_stats_; }

  QSize sizeHint() const override { return {1000, 500}; }
  QSize minimumSizeHint() const override { return {TimelinePainter::kLabelWidth + 100, 120}; }

 signals:
  void layerSelected(const QString& layer);
  void windowChanged(double start_ns, double end_ns);
  // The lanes are scrolled up by y of maximum pixels, page pixels of them in view: for a scroll
  // bar beside the view.
  void scrollChanged(int y, int maximum, int page);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  TimelineFrame frame() const;
  double nsPerPixel() const;
  double plotMiddleX() const;
  double traceSpanNs() const;
  // Clamps y to the lanes' overflow and tells scrollChanged when the position or range moved.
  void updateScroll(int y);

  TimelinePainter painter_;
  std::shared_ptr<const TimelineIndex> index_;
  double start_ns_ = 0.0;
  double end_ns_ = 1.0;
  int scroll_y_ = 0;
  int scroll_max_ = 0;
  int scroll_page_ = 0;
  TimelineHit selected_;
  TimelineFrameStats last_stats_;
  // Mouse state: a press that moves less than a few pixels before release is a click.
  QPoint press_pos_;
  QPoint last_pos_;
  bool pressed_ = false;
  bool dragging_ = false;
};

}  // namespace ampscope::gui
