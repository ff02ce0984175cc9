#include "gui/timeline/timeline_view.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

namespace ampscope::gui {
namespace {

// Zooming stops where a pixel is a fraction of a nanosecond: finer says nothing a trace knows.
constexpr double kMinSpanNs = 100.0;
// Zooming out stops a little beyond the whole trace.
constexpr double kMaxSpanFactor = 1.1;
constexpr double kFitMargin = 0.01;
constexpr double kWheelZoomPerNotch = 0.8;  // span factor per 120 eighths of a degree
constexpr double kKeyZoom = 0.5;
constexpr double kKeyPanFraction = 0.2;  // of the plot's width
constexpr int kClickSlopPx = 4;
constexpr int kHitTolerancePx = 3;

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  // paint() fills every pixel, so Qt need not clear the background first.
  setAttribute(Qt::WA_OpaquePaintEvent);
  painter_.setFont(font());
}

void TimelineView::setIndex(std::shared_ptr<const TimelineIndex> index) {
  index_ = std::move(index);
  painter_.setIndex(index_);
  selected_ = {};
  updateScroll(0);
  fitAll();
  update();
}

double TimelineView::traceSpanNs() const {
  if (!index_ || index_->endNs() <= index_->startNs()) return 1e6;
  return static_cast<double>(index_->endNs() - index_->startNs());
}

double TimelineView::nsPerPixel() const {
  return (end_ns_ - start_ns_) / TimelinePainter::plotRect(size()).width();
}

void TimelineView::setWindow(double start_ns, double end_ns) {
  const double total = traceSpanNs();
  const double max_span = std::max(kMinSpanNs, total * kMaxSpanFactor);
  const double wanted = end_ns - start_ns;
  const double span = std::clamp(std::isfinite(wanted) ? wanted : max_span, kMinSpanNs, max_span);
  double start = wanted == span ? start_ns : start_ns + (wanted - span) / 2.0;
  if (span >= total) {
    start = (total - span) / 2.0;  // the whole trace fits: keep it centred
  } else {
    // Panning may go a quarter of a window past either end, not off into empty time.
    start = std::clamp(start, -0.25 * span, total - 0.75 * span);
  }
  if (start == start_ns_ && start + span == end_ns_) return;
  start_ns_ = start;
  end_ns_ = start + span;
  update();
  emit windowChanged(start_ns_, end_ns_);
}

void TimelineView::fitAll() {
  const double total = traceSpanNs();
  setWindow(-kFitMargin * total, (1.0 + kFitMargin) * total);
}

void TimelineView::zoomAt(double factor, double x) {
  const double anchor = timeAtX(x);
  const double total = traceSpanNs();
  const double span = std::clamp((end_ns_ - start_ns_) * factor, kMinSpanNs,
                                 std::max(kMinSpanNs, total * kMaxSpanFactor));
  const double start = anchor - (x - TimelinePainter::kLabelWidth) * span /
                                    TimelinePainter::plotRect(size()).width();
  setWindow(start, start + span);
}

double TimelineView::plotMiddleX() const {
  return TimelinePainter::kLabelWidth + TimelinePainter::plotRect(size()).width() / 2.0;
}

void TimelineView::zoomIn() { zoomAt(kKeyZoom, plotMiddleX()); }

void TimelineView::zoomOut() { zoomAt(1.0 / kKeyZoom, plotMiddleX()); }

void TimelineView::panByPixels(double dx, int dy) {
  if (dx != 0.0) {
    const double shift = dx * nsPerPixel();
    setWindow(start_ns_ + shift, end_ns_ + shift);
  }
  if (dy != 0) setScrollY(scroll_y_ + dy);
}

void TimelineView::setScrollY(int y) { updateScroll(y); }

void TimelineView::updateScroll(int y) {
  const int page = std::max(0, height() - TimelinePainter::kAxisHeight);
  const int maximum = std::max(0, painter_.contentHeight() - page);
  const int clamped = std::clamp(y, 0, maximum);
  if (clamped == scroll_y_ && maximum == scroll_max_ && page == scroll_page_) return;
  scroll_y_ = clamped;
  scroll_max_ = maximum;
  scroll_page_ = page;
  update();
  emit scrollChanged(scroll_y_, scroll_max_, scroll_page_);
}

double TimelineView::timeAtX(double x) const {
  return start_ns_ + (x - TimelinePainter::kLabelWidth) * nsPerPixel();
}

double TimelineView::xAtTime(double ns) const {
  return TimelinePainter::kLabelWidth + (ns - start_ns_) / nsPerPixel();
}

std::int32_t TimelineView::rowAtY(int y) const { return painter_.rowAt(y, scroll_y_); }

int TimelineView::rowCenterY(std::int32_t row) const {
  return painter_.rowTop(row, scroll_y_) + TimelinePainter::kRowHeight / 2;
}

TimelineHit TimelineView::hitAt(const QPoint& pos) const {
  if (!index_ || pos.x() < TimelinePainter::kLabelWidth) return {};
  const std::int32_t row = rowAtY(pos.y());
  if (row < 0) return {};
  // A mouse position names a pixel; its centre is the time it stands for.
  const double t = static_cast<double>(index_->startNs()) + timeAtX(pos.x() + 0.5);
  return index_->hitTest(row, std::llround(t), std::llround(kHitTolerancePx * nsPerPixel()));
}

QString TimelineView::toolTipAt(const QPoint& pos) const {
  if (!index_ || pos.x() < TimelinePainter::kLabelWidth) return {};
  const TimelineHit hit = hitAt(pos);
  if (hit.valid()) return QString::fromStdString(index_->describe(index_->event(hit)));
  const std::int32_t lane = painter_.counterLaneAt(pos.y(), scroll_y_);
  if (lane < 0) return {};
  // The pixel under the cursor, as the painter's columns cover it.
  const auto origin = static_cast<double>(index_->startNs());
  const auto from = std::llround(std::floor(origin + timeAtX(pos.x())));
  const auto to = std::max<std::int64_t>(from + 1, std::llround(std::floor(origin + timeAtX(pos.x() + 1))));
  return QString::fromStdString(index_->describeCounter(index_->lanes()[static_cast<std::size_t>(lane)], from, to));
}

void TimelineView::select(TimelineHit hit) {
  selected_ = hit;
  update();
  if (!hit.valid() || !index_) return;
  const std::string_view layer = index_->layerOf(index_->event(hit));
  if (!layer.empty()) emit layerSelected(QString::fromUtf8(layer.data(), static_cast<qsizetype>(layer.size())));
}

TimelineFrame TimelineView::frame() const { return {start_ns_, end_ns_, scroll_y_, selected_}; }

TimelineFrameStats TimelineView::renderFrame(QImage& image) {
  QPainter painter(&image);
  last_stats_ = painter_.paint(painter, image.size(), frame());
  return last_stats_;
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::FontChange) painter_.setFont(font());
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (!text.isEmpty()) {
      QToolTip::showText(help->globalPos(), text, this);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  return QWidget::event(event);
}

void TimelineView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  last_stats_ = painter_.paint(painter, size(), frame());
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateScroll(scroll_y_);  // a taller widget may need less scrolling
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint angle = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    // Some platforms turn Shift+wheel into a horizontal wheel: take whichever axis moved.
    const int delta = angle.y() != 0 ? angle.y() : angle.x();
    setScrollY(scroll_y_ - delta * 3 * TimelinePainter::kRowHeight / 120);
  } else if (angle.y() == 0 && angle.x() != 0) {
    panByPixels(-angle.x() * 0.5, 0);  // a horizontal wheel or trackpad swipe pans
  } else if (angle.y() != 0) {
    zoomAt(std::pow(kWheelZoomPerNotch, angle.y() / 120.0), event->position().x());
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  pressed_ = true;
  dragging_ = false;
  press_pos_ = last_pos_ = event->position().toPoint();
  setFocus(Qt::MouseFocusReason);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (!pressed_ || !(event->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(event);
  const QPoint pos = event->position().toPoint();
  if (!dragging_ && (pos - press_pos_).manhattanLength() > kClickSlopPx) {
    dragging_ = true;
    setCursor(Qt::ClosedHandCursor);
  }
  if (!dragging_) return;
  const QPoint moved = last_pos_ - pos;
  panByPixels(moved.x(), moved.y());
  last_pos_ = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !pressed_) return QWidget::mouseReleaseEvent(event);
  if (!dragging_) select(hitAt(event->position().toPoint()));
  pressed_ = false;
  dragging_ = false;
  unsetCursor();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const double pan = kKeyPanFraction * TimelinePainter::plotRect(size()).width();
  const int page = std::max(TimelinePainter::kRowHeight, height() - TimelinePainter::kAxisHeight);
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_W: zoomIn(); break;
    case Qt::Key_Minus:
    case Qt::Key_S: zoomOut(); break;
    case Qt::Key_Left:
    case Qt::Key_A: panByPixels(-pan, 0); break;
    case Qt::Key_Right:
    case Qt::Key_D: panByPixels(pan, 0); break;
    case Qt::Key_Up: panByPixels(0, -2 * TimelinePainter::kRowHeight); break;
    case Qt::Key_Down: panByPixels(0, 2 * TimelinePainter::kRowHeight); break;
    case Qt::Key_PageUp: panByPixels(0, -page); break;
    case Qt::Key_PageDown: panByPixels(0, page); break;
    case Qt::Key_Home:
    case Qt::Key_0: fitAll(); break;
    case Qt::Key_Escape: select({}); break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

}  // namespace ampscope::gui
