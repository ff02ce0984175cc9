#include "gui/timeline/timeline_painter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include <QFontMetrics>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>

namespace ampscope::gui {
namespace {

constexpr int kColorCount = kTimelineStyleCount * kTimelineShadeCount;
// A name is written only where a few characters fit.
constexpr int kMinLabelWidth = 24;
// Runs of narrow events are drawn at least this opaque, however idle, so that they stay visible.
constexpr double kMinRunOpacity = 0.35;
// Ticks at least this far apart leave room for their labels.
constexpr double kMinTickSpacingPx = 100.0;

const QColor kBackground(255, 255, 255);
const QColor kAlternateLane(246, 247, 249);
const QColor kChrome(238, 240, 243);
const QColor kGridLine(228, 230, 234);
const QColor kChromeText(60, 64, 72);
// Queue depth: a slate that no event style uses, so a counter never reads as an event.
const QColor kCounterFill(144, 164, 204);
const QColor kCounterEdge(57, 73, 171);

struct Palette {
  std::array<QColor, kColorCount> fill;
  std::array<bool, kColorCount> dark_text{};
};

const Palette& palette() {
  static const Palette colors = [] {
    // One hue per style, so kinds and phases read at a glance; Tensor Core kernels green,
    // other kernels blue, because "which kernels miss Tensor Cores" is the question asked most;
    // collectives red, the time a rank spends on (and waiting for) the others.
    const std::array<QColor, kTimelineStyleCount> base = {
        QColor(67, 160, 71),    // kTensorCoreKernel
        QColor(66, 133, 244),   // kKernel
        QColor(198, 40, 40),    // kCommunicationKernel
        QColor(120, 144, 156),  // kHostOp
        QColor(255, 152, 0),    // kMemcpy
        QColor(205, 170, 60),   // kMemset
        QColor(176, 180, 188),  // kRangeStep
        QColor(171, 71, 188),   // kRangeData
        QColor(79, 195, 247),   // kRangeForward
        QColor(255, 138, 101),  // kRangeBackward
        QColor(192, 202, 51),   // kRangeOptimizer
        QColor(240, 98, 146),   // kRangeLossScale
        QColor(144, 164, 174),  // kRangeOther
    };
    Palette p;
    for (int style = 0; style < kTimelineStyleCount; ++style) {
      for (int shade = 0; shade < kTimelineShadeCount; ++shade) {
        const auto at = static_cast<std::size_t>(style * kTimelineShadeCount + shade);
        p.fill[at] = base[static_cast<std::size_t>(style)].lighter(100 + 12 * shade);
        p.dark_text[at] = p.fill[at].lightness() > 140;
      }
    }
    return p;
  }();
  return colors;
}

std::size_t colorIndex(const TimelineEvent& event) {
  return static_cast<std::size_t>(static_cast<int>(event.style) * kTimelineShadeCount +
                                  event.shade % kTimelineShadeCount);
}

// Tick spacing of 1, 2 or 5 times a power of ten, and how to label it: in the unit of the largest
// time shown (so "29.4505 s", not "29450500 µs") with the decimals the spacing needs.
struct AxisTicks {
  double step_ns = 1.0;
  double first_ns = 0.0;
  double unit_ns = 1.0;
  const char* unit = "ns";
  int decimals = 0;
};

AxisTicks axisTicks(const TimelineFrame& frame, double ns_per_px) {
  AxisTicks ticks;
  const double min_step = std::max(1.0, kMinTickSpacingPx * ns_per_px);
  const double power = std::pow(10.0, std::floor(std::log10(min_step)));
  ticks.step_ns = power;
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    ticks.step_ns = factor * power;
    if (ticks.step_ns >= min_step) break;
  }
  ticks.first_ns = std::ceil(frame.start_ns / ticks.step_ns) * ticks.step_ns;
  const double largest = std::max(std::abs(frame.start_ns), std::abs(frame.end_ns));
  if (largest >= 1e9) {
    ticks.unit_ns = 1e9;
    ticks.unit = "s";
  } else if (largest >= 1e6) {
    ticks.unit_ns = 1e6;
    ticks.unit = "ms";
  } else if (largest >= 1e3) {
    ticks.unit_ns = 1e3;
    ticks.unit = "µs";
  }
  ticks.decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(ticks.step_ns / ticks.unit_ns) - 1e-9)));
  return ticks;
}

}  // namespace

TimelinePainter::TimelinePainter() { setFont(QFont()); }

void TimelinePainter::setFont(const QFont& font) {
  font_ = font;
  const QFontMetricsF metrics(font_);
  ellipsis_width_ = static_cast<float>(metrics.horizontalAdvance(QChar(0x2026)));
  const auto make = [&](const QString& text) {
    NameText name{text, {0.0F}};
    for (const QChar c : text) name.advance.push_back(name.advance.back() + static_cast<float>(metrics.horizontalAdvance(c)));
    return name;
  };
  memcpy_text_ = make(QStringLiteral("memcpy"));
  memset_text_ = make(QStringLiteral("memset"));
  // Advances depend on the font: names are measured again when next drawn.
  std::fill(name_ready_.begin(), name_ready_.end(), false);
}

void TimelinePainter::setIndex(std::shared_ptr<const TimelineIndex> index) {
  index_ = std::move(index);
  row_top_.clear();
  lane_top_.clear();
  content_height_ = 0;
  names_.clear();
  name_ready_.clear();
  if (!index_) return;
  for (std::size_t lane = 0; lane < index_->lanes().size(); ++lane) {
    const TimelineLane& l = index_->lanes()[lane];
    lane_top_.push_back(content_height_);
    for (std::int32_t r = 0; r < l.row_count; ++r) row_top_.push_back(content_height_ + r * kRowHeight);
    content_height_ += laneHeight(lane) + kLaneGap;
  }
  names_.resize(index_->trace().strings.size());
  name_ready_.assign(names_.size(), false);
}

QRect TimelinePainter::plotRect(const QSize& size) {
  return {kLabelWidth, kAxisHeight, std::max(1, size.width() - kLabelWidth),
          std::max(1, size.height() - kAxisHeight)};
}

int TimelinePainter::rowTop(std::int32_t row, int scroll_y) const {
  return kAxisHeight + row_top_[static_cast<std::size_t>(row)] - scroll_y;
}

std::int32_t TimelinePainter::rowAt(int y, int scroll_y) const {
  const int content_y = y - kAxisHeight + scroll_y;
  if (y < kAxisHeight || row_top_.empty() || content_y < 0) return -1;
  const auto after = std::upper_bound(row_top_.begin(), row_top_.end(), content_y);
  if (after == row_top_.begin()) return -1;  // above the first row: a counter lane comes first
  const auto row = static_cast<std::int32_t>(after - row_top_.begin()) - 1;
  return content_y < row_top_[static_cast<std::size_t>(row)] + kRowHeight ? row : -1;
}

int TimelinePainter::laneTop(std::size_t lane, int scroll_y) const {
  return kAxisHeight + lane_top_[lane] - scroll_y;
}

int TimelinePainter::laneHeight(std::size_t lane) const {
  const TimelineLane& l = index_->lanes()[lane];
  return l.kind == TimelineLaneKind::kQueue ? kCounterHeight : l.row_count * kRowHeight;
}

std::int32_t TimelinePainter::counterLaneAt(int y, int scroll_y) const {
  const int content_y = y - kAxisHeight + scroll_y;
  if (y < kAxisHeight || lane_top_.empty() || content_y < 0) return -1;
  const auto after = std::upper_bound(lane_top_.begin(), lane_top_.end(), content_y);
  if (after == lane_top_.begin()) return -1;
  const auto lane = static_cast<std::size_t>(after - lane_top_.begin()) - 1;
  if (index_->lanes()[lane].kind != TimelineLaneKind::kQueue) return -1;
  return content_y < lane_top_[lane] + kCounterHeight ? static_cast<std::int32_t>(lane) : -1;
}

QColor TimelinePainter::colorOf(TimelineStyle style, int shade) {
  return palette().fill[static_cast<std::size_t>(static_cast<int>(style) * kTimelineShadeCount +
                                                 shade % kTimelineShadeCount)];
}

const TimelinePainter::NameText& TimelinePainter::nameText(const TimelineEvent& event) {
  if (event.kind == TimelineEventKind::kMemoryOp) {
    return event.style == TimelineStyle::kMemset ? memset_text_ : memcpy_text_;
  }
  const auto id = static_cast<std::size_t>(index_->nameOf(event));
  NameText& name = names_[id];
  if (!name_ready_[id]) {
    const std::string_view text = index_->trace().str(static_cast<trace::StringId>(id));
    name.text = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
    const QFontMetricsF metrics(font_);
    name.advance.assign(1, 0.0F);
    name.advance.reserve(static_cast<std::size_t>(name.text.size()) + 1);
    for (const QChar c : name.text) {
      name.advance.push_back(name.advance.back() + static_cast<float>(metrics.horizontalAdvance(c)));
    }
    name_ready_[id] = true;
  }
  return name;
}

QString TimelinePainter::fittedName(const TimelineEvent& event, double width) {
  const NameText& name = nameText(event);
  if (name.text.isEmpty()) return {};
  if (name.advance.back() <= width) return name.text;
  // Eliding with the cached advances costs a binary search; QFontMetrics::elidedText lays the
  // text out again for every label of every frame.
  const double room = width - ellipsis_width_;
  const auto fits = std::upper_bound(name.advance.begin(), name.advance.end(), static_cast<float>(room));
  const auto chars = static_cast<qsizetype>(fits - name.advance.begin()) - 1;
  if (chars < 2) return {};
  return name.text.left(chars) + QChar(0x2026);
}

TimelineFrameStats TimelinePainter::paint(QPainter& painter, const QSize& size,
                                          const TimelineFrame& frame) {
  TimelineFrameStats stats;
  painter.save();
  painter.setFont(font_);
  painter.fillRect(QRect(QPoint(0, 0), size), kBackground);
  if (!index_ || index_->eventCount() == 0) {
    paintEmpty(painter, size);
    painter.restore();
    return stats;
  }
  const QRect plot = plotRect(size);
  // Every other lane is shaded, so a lane's rows read as one group.
  const auto& lanes = index_->lanes();
  for (std::size_t i = 1; i < lanes.size(); i += 2) {
    const int top = laneTop(i, frame.scroll_y);
    const QRect band(0, top - kLaneGap / 2, size.width(), laneHeight(i) + kLaneGap);
    if (band.bottom() >= kAxisHeight && band.top() < size.height()) painter.fillRect(band, kAlternateLane);
  }
  const double span = frame.end_ns - frame.start_ns;
  if (span > 0.0) {
    const double ns_per_px = span / plot.width();
    const AxisTicks ticks = axisTicks(frame, ns_per_px);
    painter.setPen(kGridLine);
    grid_x_.clear();
    for (double t = ticks.first_ns; t <= frame.end_ns; t += ticks.step_ns) {
      const int x = static_cast<int>(std::lround((t - frame.start_ns) / ns_per_px));
      grid_x_.push_back(x);
      painter.drawLine(plot.left() + x, plot.top(), plot.left() + x, plot.bottom());
    }
    painter.setClipRect(plot);
    paintRows(painter, plot, frame, stats);
    paintCounters(painter, plot, frame);
    painter.setClipping(false);
    paintAxis(painter, size, frame);
  }
  paintLaneLabels(painter, size, frame.scroll_y);
  painter.restore();
  return stats;
}

void TimelinePainter::paintRows(QPainter& painter, const QRect& plot, const TimelineFrame& frame,
                                TimelineFrameStats& stats) {
  const double ns_per_px = (frame.end_ns - frame.start_ns) / plot.width();
  const std::int64_t origin = index_->startNs();
  const std::int64_t t0 = origin + static_cast<std::int64_t>(std::floor(frame.start_ns));
  const std::int64_t t1 = origin + static_cast<std::int64_t>(std::ceil(frame.end_ns));
  // Pixel x within the plot of a trace time, clamped just outside it so far-off ends fit an int.
  const auto xOf = [&](std::int64_t t) {
    const double x = (static_cast<double>(t - origin) - frame.start_ns) / ns_per_px;
    return std::clamp(x, -2.0, static_cast<double>(plot.width() + 2));
  };
  const int width = plot.width();
  const int bar_height = kRowHeight - 2;
  if (strip_.width() != width || strip_.height() != bar_height) {
    strip_ = QImage(width, bar_height, QImage::Format_RGB32);
  }
  line_.resize(static_cast<std::size_t>(width));
  labels_.clear();
  const Palette& colors = palette();
  const auto& rows = index_->rows();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int top = rowTop(static_cast<std::int32_t>(r), frame.scroll_y);
    if (top + kRowHeight <= plot.top()) continue;
    if (top > plot.bottom()) break;  // rows are laid out top to bottom
    items_.clear();
    rows[r].query(t0, t1, ns_per_px, items_);
    // A row is drawn as one line of pixels stretched to the bar's height: filling a pixel span
    // costs the same for one item or thousands, where QPainter costs a few hundred ns per
    // rectangle. The line is opaque (lane shading and grid put in by hand) so that drawing it is
    // a copy, not a blend.
    const bool shaded = index_->laneOfRow(static_cast<std::int32_t>(r)) % 2 == 1;
    const QRgb background = (shaded ? kAlternateLane : kBackground).rgb();
    std::fill(line_.begin(), line_.end(), background);
    for (const int x : grid_x_) {
      if (x >= 0 && x < width) line_[static_cast<std::size_t>(x)] = kGridLine.rgb();
    }
    for (const TimelineItem& item : items_) {
      const int left = static_cast<int>(std::floor(xOf(item.start_ns)));
      int right = std::max(left + 1, static_cast<int>(std::ceil(xOf(item.end_ns))));
      // A pixel of background between wide neighbours keeps back-to-back kernels apart.
      if (item.single() && right - left >= 3) --right;
      const TimelineEvent& event = rows[r][static_cast<std::size_t>(item.dominant)];
      const std::size_t color = colorIndex(event);
      QRgb pixel = colors.fill[color].rgb();
      if (!item.single()) {
        // A run is as opaque as it is busy, so a stream that is idle most of a pixel looks faint.
        const double span = static_cast<double>(std::max<std::int64_t>(1, item.end_ns - item.start_ns));
        const double busy = std::clamp(static_cast<double>(item.busy_ns) / span, kMinRunOpacity, 1.0);
        const auto mix = [busy](int fill, int under) {
          return static_cast<int>(std::lround(under + (fill - under) * busy));
        };
        pixel = qRgb(mix(qRed(pixel), qRed(background)), mix(qGreen(pixel), qGreen(background)),
                     mix(qBlue(pixel), qBlue(background)));
      }
      std::fill(line_.begin() + std::clamp(left, 0, width), line_.begin() + std::clamp(right, 0, width), pixel);
      ++stats.items;
      if (!item.single()) stats.merged_events += static_cast<std::size_t>(item.count);
      if (item.single() && right - left >= kMinLabelWidth) {
        labels_.push_back({QRect(plot.left() + left, top + 1, right - left, bar_height), event,
                           colors.dark_text[color]});
      }
    }
    const auto line_bytes = static_cast<std::size_t>(width) * sizeof(QRgb);
    for (int y = 0; y < bar_height; ++y) std::memcpy(strip_.scanLine(y), line_.data(), line_bytes);
    painter.drawImage(QPoint(plot.left(), top + 1), strip_);
  }
  const QFontMetrics metrics(font_);
  const int baseline_offset = (kRowHeight - 2 + metrics.ascent() - metrics.descent()) / 2;
  for (const Label& label : labels_) {
    const QRect visible = label.rect.intersected(plot);
    const QString text = fittedName(label.event, visible.width() - 6);
    if (text.isEmpty()) continue;
    painter.setPen(label.dark_text ? QColor(20, 20, 20) : QColor(255, 255, 255));
    painter.drawText(visible.left() + 3, label.rect.top() + baseline_offset, text);
    ++stats.labels;
  }
  if (frame.selected.valid() && static_cast<std::size_t>(frame.selected.row) < rows.size()) {
    const TimelineEvent& event = index_->event(frame.selected);
    const int top = rowTop(frame.selected.row, frame.scroll_y);
    const int left = plot.left() + static_cast<int>(std::floor(xOf(event.start_ns)));
    const int right = std::max(left + 3, plot.left() + static_cast<int>(std::ceil(xOf(event.end_ns))));
    painter.setPen(QPen(QColor(0, 0, 0), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRect(left - 1, top, right - left + 2, kRowHeight));
  }
}

void TimelinePainter::paintCounters(QPainter& painter, const QRect& plot, const TimelineFrame& frame) {
  const double ns_per_px = (frame.end_ns - frame.start_ns) / plot.width();
  // Column c covers [t0 + c · ns_per_px, ...), as the rows' pixels do.
  const std::int64_t t0 = index_->startNs() + static_cast<std::int64_t>(std::floor(frame.start_ns));
  const int width = plot.width();
  const int height = kCounterHeight - 2;
  if (counter_image_.width() != width || counter_image_.height() != height) {
    counter_image_ = QImage(width, height, QImage::Format_RGB32);
  }
  counter_top_.resize(static_cast<std::size_t>(width));
  const auto& lanes = index_->lanes();
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    if (lanes[lane].kind != TimelineLaneKind::kQueue) continue;
    const int top = laneTop(lane, frame.scroll_y);
    if (top + kCounterHeight <= plot.top() || top > plot.bottom()) continue;
    const TimelineCounter& counter = index_->counterOf(lanes[lane]);
    counter.query(t0, ns_per_px, width, counter_values_);
    // The scale is the counter's maximum over the whole trace; any non-zero depth gets a pixel.
    const double scale = static_cast<double>(height) / std::max(1, counter.maxValue());
    for (std::size_t x = 0; x < counter_top_.size(); ++x) {
      const std::int32_t value = counter_values_[x];
      const int bar = value <= 0 ? 0 : std::clamp(static_cast<int>(std::lround(value * scale)), 1, height);
      counter_top_[x] = height - bar;
    }
    // Drawn by hand as the rows are (an opaque image, lane shading and grid included): a step
    // plot's outline is its top in each column plus the vertical edge where it changes.
    const QRgb background = (lane % 2 == 1 ? kAlternateLane : kBackground).rgb();
    line_.assign(static_cast<std::size_t>(width), background);
    for (const int x : grid_x_) {
      if (x >= 0 && x < width) line_[static_cast<std::size_t>(x)] = kGridLine.rgb();
    }
    const QRgb fill = kCounterFill.rgb();
    const QRgb edge = kCounterEdge.rgb();
    for (int y = 0; y < height; ++y) {
      auto* pixels = reinterpret_cast<QRgb*>(counter_image_.scanLine(y));
      int previous = height;
      for (std::size_t x = 0; x < counter_top_.size(); ++x) {
        const int bar_top = counter_top_[x];
        const bool on_edge = (y >= std::min(bar_top, previous) && y < std::max(bar_top, previous)) || y == bar_top;
        pixels[x] = on_edge ? edge : y > bar_top ? fill : line_[x];
        previous = bar_top;
      }
    }
    painter.drawImage(QPoint(plot.left(), top + 1), counter_image_);
  }
}

void TimelinePainter::paintAxis(QPainter& painter, const QSize& size, const TimelineFrame& frame) {
  const QRect plot = plotRect(size);
  const QRect band(kLabelWidth, 0, size.width() - kLabelWidth, kAxisHeight);
  painter.fillRect(band, kChrome);
  painter.setPen(kGridLine.darker(130));
  painter.drawLine(band.bottomLeft(), band.bottomRight());
  const double ns_per_px = (frame.end_ns - frame.start_ns) / plot.width();
  const AxisTicks ticks = axisTicks(frame, ns_per_px);
  const QFontMetrics metrics(font_);
  const int baseline = (kAxisHeight + metrics.ascent() - metrics.descent()) / 2;
  painter.setClipRect(band);
  for (double t = ticks.first_ns; t <= frame.end_ns; t += ticks.step_ns) {
    const int x = plot.left() + static_cast<int>(std::lround((t - frame.start_ns) / ns_per_px));
    painter.setPen(kChromeText);
    painter.drawLine(x, kAxisHeight - 6, x, kAxisHeight - 1);
    // Times count from the trace's first event.
    const QString text = QStringLiteral("%1 %2")
                             .arg(t / ticks.unit_ns, 0, 'f', ticks.decimals)
                             .arg(QString::fromUtf8(ticks.unit));
    painter.drawText(x + 3, baseline, text);
  }
  painter.setClipping(false);
}

void TimelinePainter::paintLaneLabels(QPainter& painter, const QSize& size, int scroll_y) {
  const QRect column(0, 0, kLabelWidth, size.height());
  painter.fillRect(column, kChrome);
  painter.setPen(kGridLine.darker(130));
  painter.drawLine(column.topRight(), column.bottomRight());
  const QFontMetrics metrics(font_);
  painter.setClipRect(QRect(0, kAxisHeight, kLabelWidth - 1, size.height() - kAxisHeight));
  painter.setPen(kChromeText);
  const auto& lanes = index_->lanes();
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const int top = laneTop(i, scroll_y);
    if (top + laneHeight(i) < kAxisHeight || top > size.height()) continue;
    const QRect first_line(6, top, kLabelWidth - 12, kRowHeight);
    if (lanes[i].communication) {
      // A bar in the collectives' colour beside the label ties the lane to its kernels.
      painter.fillRect(QRect(1, top + 2, 3, laneHeight(i) - 4), colorOf(TimelineStyle::kCommunicationKernel, 0));
    }
    if (lanes[i].kind != TimelineLaneKind::kQueue) {
      const QString label = metrics.elidedText(QString::fromStdString(lanes[i].label), Qt::ElideRight,
                                               first_line.width());
      painter.drawText(first_line, Qt::AlignVCenter | Qt::AlignLeft, label);
      continue;
    }
    // A counter lane is two rows high: the title and the scale (the plot's top is the counter's
    // maximum, its bottom an empty queue) on the first, the stream on the second, where the whole
    // label would not fit on one.
    painter.drawText(first_line, Qt::AlignVCenter | Qt::AlignLeft,
                     QString::fromUtf8(kQueueLaneTitle.data(), static_cast<qsizetype>(kQueueLaneTitle.size())));
    painter.drawText(first_line, Qt::AlignVCenter | Qt::AlignRight,
                     QStringLiteral("max %1").arg(index_->counterOf(lanes[i]).maxValue()));
    painter.drawText(first_line.translated(0, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     metrics.elidedText(QString::fromStdString(lanes[i].subject), Qt::ElideRight, first_line.width()));
  }
  painter.setClipping(false);
}

void TimelinePainter::paintEmpty(QPainter& painter, const QSize& size) {
  painter.setPen(kChromeText);
  painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
                   index_ ? QStringLiteral("This run has no kernels, memory operations or ranges to show")
                          : QStringLiteral("No run loaded"));
}

}  // namespace ampscope::gui
