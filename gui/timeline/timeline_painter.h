#pragma once
// Draws one frame of the timeline: lane labels on the left, a time axis on top, each visible
// row's level-of-detail items as bars, with names where they fit, and each counter lane's largest
// value per pixel column as a filled step plot scaled to the counter's maximum. The same code paints the
// widget and renders offscreen frames (benchmark, tests), so what is measured is what is shown.
// Also owns the vertical layout (where each row lies), which the view's hit tests share.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <QColor>
#include <QFont>
#include <QImage>
#include <QRect>
#include <QSize>
#include <QString>

#include "gui/timeline/timeline_index.h"

class QPainter;

namespace ampscope::gui {

// What one frame shows.
struct TimelineFrame {
  double start_ns = 0.0;  // the visible window, in ns after TimelineIndex::startNs()
  double end_ns = 1.0;
  int scroll_y = 0;       // pixels the rows are scrolled up by
  TimelineHit selected;   // drawn outlined
};

// What drawing one frame took: items drawn (single events and merged runs) and names written.
struct TimelineFrameStats {
  std::size_t items = 0;
  std::size_t merged_events = 0;  // events drawn as part of a run of more than one
  std::size_t labels = 0;
};

class TimelinePainter {
 public:
  static constexpr int kLabelWidth = 200;
  static constexpr int kAxisHeight = 24;
  static constexpr int kRowHeight = 18;
  static constexpr int kLaneGap = 6;
  // Two rows: tall enough that a depth of one in a queue that reaches a thousand still shows.
  static constexpr int kCounterHeight = 2 * kRowHeight;

  TimelinePainter();

  void setIndex(std::shared_ptr<const TimelineIndex> index);
  const TimelineIndex* index() const { return index_.get(); }
  void setFont(const QFont& font);

  TimelineFrameStats paint(QPainter& painter, const QSize& size, const TimelineFrame& frame);

  // The events' area of a frame of size: right of the labels, below the axis.
  static QRect plotRect(const QSize& size);
  // Height of all rows and lane gaps, in pixels.
  int contentHeight() const { return content_height_; }
  // Top of row in a frame scrolled by scroll_y.
  int rowTop(std::int32_t row, int scroll_y) const;
  // The row at y in a frame scrolled by scroll_y; -1 on the axis, in a lane gap, in a counter
  // lane or below the rows.
  std::int32_t rowAt(int y, int scroll_y) const;
  // Top and height of a lane (its rows, or its counter plot) in a frame scrolled by scroll_y.
  int laneTop(std::size_t lane, int scroll_y) const;
  int laneHeight(std::size_t lane) const;
  // The counter (kQueue) lane at y in a frame scrolled by scroll_y; -1 when y is not in one.
  std::int32_t counterLaneAt(int y, int scroll_y) const;
  static QColor colorOf(TimelineStyle style, int shade);

 private:
  struct NameText {
    QString text;
    std::vector<float> advance;  // advance[k]: width of the first k characters
  };
  const NameText& nameText(const TimelineEvent& event);
  QString fittedName(const TimelineEvent& event, double width);
  void paintRows(QPainter& painter, const QRect& plot, const TimelineFrame& frame,
                 TimelineFrameStats& stats);
  void paintCounters(QPainter& painter, const QRect& plot, const TimelineFrame& frame);
  void paintAxis(QPainter& painter, const QSize& size, const TimelineFrame& frame);
  void paintLaneLabels(QPainter& painter, const QSize& size, int scroll_y);
  void paintEmpty(QPainter& painter, const QSize& size);

  std::shared_ptr<const TimelineIndex> index_;
  std::vector<int> row_top_;   // in content coordinates: 0 is the first lane's top
  std::vector<int> lane_top_;  // likewise
  int content_height_ = 0;
  QFont font_;
  // Reused from frame to frame so that drawing allocates nothing once warm.
  std::vector<TimelineItem> items_;
  std::vector<QRgb> line_;   // one row's pixels across the plot
  QImage strip_;             // line_ repeated over a bar's height
  std::vector<std::int32_t> counter_values_;  // a counter's largest value per pixel column
  std::vector<int> counter_top_;              // where each column's fill starts, in the plot
  QImage counter_image_;                      // a counter lane's step plot
  std::vector<int> grid_x_;  // the time grid's columns in the plot
  struct Label {
    QRect rect;
    TimelineEvent event;
    bool dark_text = true;
  };
  std::vector<Label> labels_;
  // Names as Qt strings with their character advances, made once per name when first drawn.
  std::vector<NameText> names_;
  std::vector<bool> name_ready_;
  NameText memcpy_text_;
  NameText memset_text_;
  float ellipsis_width_ = 0.0F;
};

}  // namespace ampscope::gui
