#include "gui/tabs/memory_tab.h"

#include <algorithm>

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "gui/tabs/chart_style.h"
#include "reports/memory_view.h"
#include "reports/report_file.h"

namespace ampscope::gui {

namespace {

const char* const kChartTitle = "Memory over time";
// Points drawn per series at most: the timeline is thinned to this many columns for drawing
// (reports::thinMemoryTimeline keeps each column's extremes, so the peak stays drawn).
constexpr std::size_t kChartColumns = 1500;

QString bytesText(std::int64_t bytes) { return toQString(reports::formatBytes(bytes)); }

// A step line: memory holds its value until the next event.
QList<QPointF> stepPoints(const std::vector<analyzer::MemorySample>& samples, std::int64_t first_ns, double bytes_per_unit,
                          bool reserved) {
  QList<QPointF> points;
  for (const analyzer::MemorySample& sample : samples) {
    const std::int64_t bytes = reserved ? sample.reserved_bytes : sample.allocated_bytes;
    if (bytes < 0) continue;
    const double x = static_cast<double>(sample.time_ns - first_ns) / 1e6;
    const double y = static_cast<double>(bytes) / bytes_per_unit;
    if (!points.isEmpty()) points.append(QPointF(x, points.back().y()));
    points.append(QPointF(x, y));
  }
  return points;
}

}  // namespace

MemoryTab::MemoryTab(QWidget* parent) : RunView(parent) {
  pages_ = new QStackedWidget(this);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(pages_);

  // Page 0: a message in place of the chart (no run, or no memory events).
  message_ = addMessagePage(pages_, "noMemoryMessage");
  message_->setTextFormat(Qt::RichText);

  // Page 1: cards, the chart, the moment clicked and the peak's breakdown.
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(18, 16, 18, 16);
  layout->setSpacing(10);
  auto* cards = new QHBoxLayout;
  cards->setSpacing(12);
  peak_ = new FigureCard("Peak allocated", "memoryPeakValue");
  reserved_ = new FigureCard("Peak reserved", "memoryReservedValue");
  basis_ = new FigureCard("Figures", "memoryBasisValue");
  amp_ = new FigureCard("Under AMP (projection)", "memoryAmpValue");
  for (FigureCard* card : {peak_, reserved_, basis_, amp_}) cards->addWidget(card, 1);
  layout->addLayout(cards);

  chart_view_ = makeChartView(kChartTitle, "memoryChart");
  chart_view_->viewport()->installEventFilter(this);
  moment_ = makeNote({}, "memoryMoment", page);

  auto* tables = new QWidget;
  auto* tables_layout = new QHBoxLayout(tables);
  tables_layout->setContentsMargins(0, 6, 0, 0);
  auto* category_column = new QVBoxLayout;
  category_column->addWidget(makeHeading("At the peak by category", tables));
  categories_ = makeTable({"Category", "Bytes", "Share"}, "memoryCategories", tables, {1, 2});
  category_column->addWidget(categories_, 1);
  auto* layer_column = new QVBoxLayout;
  layers_heading_ = makeHeading("Live at the peak by layer", tables);
  layer_column->addWidget(layers_heading_);
  layers_ = makeTable({"Layer", "Pass", "Bytes", "Share", "Blocks"}, "memoryLayers", tables, {2, 3, 4});
  layer_column->addWidget(layers_, 1);
  tables_layout->addLayout(category_column, 2);
  tables_layout->addLayout(layer_column, 3);

  auto* splitter = new QSplitter(Qt::Vertical, page);
  auto* chart_page = new QWidget;
  auto* chart_layout = new QVBoxLayout(chart_page);
  chart_layout->setContentsMargins(0, 0, 0, 0);
  chart_layout->addWidget(chart_view_, 1);
  chart_layout->addWidget(moment_);
  splitter->addWidget(chart_page);
  splitter->addWidget(tables);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);
  pages_->addWidget(page);
  showRun(nullptr);
}

void MemoryTab::showMessage(const QString& text) {
  device_ = nullptr;
  resetChart(chart_view_, kChartTitle);
  categories_->setRowCount(0);
  layers_->setRowCount(0);
  message_->setText(text);
  pages_->setCurrentIndex(0);
}

void MemoryTab::showRun(RunPtr run) {
  run_ = std::move(run);
  if (!run_) {
    showMessage("Open a trace to see its memory over time.");
    return;
  }
  const analyzer::MemoryAnalysis& memory = run_->summary.memory;
  const analyzer::DeviceMemory* device = memory.primaryDevice();
  if (!device) {
    showMessage("<p style='font-size:15px; color:#1f2933'><b>This trace records no memory events.</b></p>"
                "<p>PyTorch's profiler records them with <code>profile_memory=True</code>.</p>");
    return;
  }
  device_ = device;
  pages_->setCurrentIndex(1);
  showCards(memory, *device);
  showChart(*device, run_->summary.iterations);
  showBreakdown(*device);
  moment_->setText("Click the chart to read the totals at a moment and what is live then by layer.");
}

void MemoryTab::showCards(const analyzer::MemoryAnalysis& memory, const analyzer::DeviceMemory& d) {
  peak_->setFigure(bytesText(d.peak_allocated_bytes),
                   toQString(reports::memoryDeviceLabel(d) + ", " + reports::memoryPeakWhenText(d, run_->summary.iterations)));
  reserved_->setFigure(d.peak_reserved_bytes < 0 ? QStringLiteral("unknown") : bytesText(d.peak_reserved_bytes),
                       d.peak_reserved_bytes < 0 ? QStringLiteral("the trace does not record it")
                                                 : QStringLiteral("the allocator's largest reservation"));
  basis_->setFigure(d.totals == analyzer::MemoryTotals::kRecorded ? QStringLiteral("measured") : QStringLiteral("reconstructed"),
                    toQString(reports::memoryBasisText(d)));
  const analyzer::AmpMemoryProjection& amp = memory.amp;
  amp_->setFigure(amp.applies ? bytesText(amp.projected_peak_allocated_bytes) : QStringLiteral("–"),
                  toQString(reports::ampMemoryText(amp)));
}

void MemoryTab::showChart(const analyzer::DeviceMemory& d, const analyzer::IterationSummary& iterations) {
  QChart* chart = resetChart(chart_view_, kChartTitle);
  if (d.timeline.empty()) return;
  const std::int64_t first_ns = d.timeline.front().time_ns;
  const std::int64_t top_bytes = std::max<std::int64_t>({d.peak_allocated_bytes, d.peak_reserved_bytes, 1});
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  bytes_per_unit_ = top_bytes >= static_cast<std::int64_t>(kGiB) ? kGiB : 1024.0 * 1024.0;
  const double top = static_cast<double>(top_bytes) / bytes_per_unit_ * 1.05;
  const double end_ms = std::max(1e-6, static_cast<double>(d.timeline.back().time_ns - first_ns) / 1e6);

  auto* time = new QValueAxis;
  time->setTitleText("time since the first memory event (ms)");
  time->setRange(0.0, end_ms);
  auto* bytes = new QValueAxis;
  bytes->setTitleText(bytes_per_unit_ == kGiB ? "GiB" : "MiB");
  bytes->setRange(0.0, top);
  chart->addAxis(time, Qt::AlignBottom);
  chart->addAxis(bytes, Qt::AlignLeft);
  const auto add = [&](QAbstractSeries* series) {
    chart->addSeries(series);
    series->attachAxis(time);
    series->attachAxis(bytes);
  };

  // The steps, shaded alternately: two area series of pulses, one per parity.
  for (int parity = 0; parity < 2; ++parity) {
    auto* upper = new QLineSeries;
    int index = 0;
    for (const analyzer::Iteration& step : iterations.iterations) {
      if (index++ % 2 != parity) continue;
      const double x0 = std::clamp(static_cast<double>(step.start_ns - first_ns) / 1e6, 0.0, end_ms);
      const double x1 = std::clamp(static_cast<double>(step.end_ns - first_ns) / 1e6, 0.0, end_ms);
      if (x1 <= x0) continue;
      upper->append({QPointF(x0, 0.0), QPointF(x0, top), QPointF(x1, top), QPointF(x1, 0.0)});
    }
    if (upper->count() == 0) {
      delete upper;
      continue;
    }
    auto* shade = new QAreaSeries(upper);
    shade->setObjectName(QStringLiteral("stepShade%1").arg(parity));
    shade->setName(parity == 0 ? QStringLiteral("steps") : QString());
    shade->setColor(parity == 0 ? QColor(0xe8edf3) : QColor(0xf3f6f9));
    shade->setBorderColor(Qt::transparent);
    add(shade);
    // One legend entry names both shades.
    if (parity == 1) {
      for (QLegendMarker* marker : chart->legend()->markers(shade)) marker->setVisible(false);
    }
  }

  const std::vector<analyzer::MemorySample> samples = reports::thinMemoryTimeline(d.timeline, kChartColumns);
  if (d.peak_reserved_bytes >= 0) {
    auto* reserved = new QLineSeries;
    reserved->setObjectName("reserved");
    reserved->setName("reserved");
    reserved->setColor(seriesColor(9));
    reserved->replace(stepPoints(samples, first_ns, bytes_per_unit_, true));
    add(reserved);
  }
  auto* allocated = new QLineSeries;
  allocated->setObjectName("allocated");
  allocated->setName("allocated");
  allocated->setColor(seriesColor(0));
  allocated->replace(stepPoints(samples, first_ns, bytes_per_unit_, false));
  add(allocated);

  auto* peak = new QScatterSeries;
  peak->setObjectName("peak");
  peak->setName("peak " + bytesText(d.peak_allocated_bytes));
  peak->setColor(seriesColor(3));
  peak->setBorderColor(Qt::white);
  peak->setMarkerSize(11);
  peak->append(static_cast<double>(d.peak_at_ns - first_ns) / 1e6, static_cast<double>(d.peak_allocated_bytes) / bytes_per_unit_);
  add(peak);
}

void MemoryTab::showBreakdown(const analyzer::DeviceMemory& d) {
  categories_->setSortingEnabled(false);
  categories_->setRowCount(static_cast<int>(d.peak_by_category.size()));
  int row = 0;
  for (const analyzer::CategoryBytes& c : d.peak_by_category) {
    categories_->setItem(row, 0, new QTableWidgetItem(toQString(reports::memoryCategoryLabel(c.category))));
    categories_->setItem(row, 1, new NumberItem(bytesText(c.bytes), static_cast<double>(c.bytes)));
    categories_->setItem(row, 2, new NumberItem(toQString(reports::shareOfPeak(c.bytes, d.peak_allocated_bytes)),
                                                static_cast<double>(c.bytes)));
    ++row;
  }
  // The analysis ranks both lists largest first: the tables open in that order.
  categories_->setSortingEnabled(true);
  categories_->sortItems(1, Qt::DescendingOrder);
  fitColumns(categories_);
  showLayers(d.peak_by_layer, QStringLiteral("Live at the peak by layer"));
}

void MemoryTab::showLayers(const std::vector<analyzer::LayerBytes>& layers, const QString& heading) {
  layers_heading_->setText(heading);
  layers_->setSortingEnabled(false);
  layers_->setRowCount(static_cast<int>(layers.size()));
  int row = 0;
  for (const analyzer::LayerBytes& layer : layers) {
    layers_->setItem(row, 0, new QTableWidgetItem(toQString(reports::memoryLayerLabel(layer))));
    layers_->setItem(row, 1, new QTableWidgetItem(trace::phaseName(layer.pass)));
    layers_->setItem(row, 2, new NumberItem(bytesText(layer.bytes), static_cast<double>(layer.bytes)));
    layers_->setItem(row, 3, new NumberItem(toQString(reports::shareOfPeak(layer.bytes, device_->peak_allocated_bytes)),
                                            static_cast<double>(layer.bytes)));
    layers_->setItem(row, 4, new NumberItem(QString::number(layer.blocks), static_cast<double>(layer.blocks)));
    ++row;
  }
  layers_->setSortingEnabled(true);
  layers_->sortItems(2, Qt::DescendingOrder);
  fitColumns(layers_);
}

void MemoryTab::showMoment(std::int64_t time_ns) {
  if (!device_ || device_->timeline.empty()) return;
  const std::vector<analyzer::MemorySample>& timeline = device_->timeline;
  // The totals in force at time_ns: those of the last event at or before it.
  auto after = std::upper_bound(timeline.begin(), timeline.end(), time_ns,
                                [](std::int64_t t, const analyzer::MemorySample& s) { return t < s.time_ns; });
  const std::int64_t since_ns = time_ns - timeline.front().time_ns;
  if (after == timeline.begin()) {
    moment_->setText(QStringLiteral("At %1: before the first memory event.").arg(durationText(since_ns)));
    return;
  }
  const analyzer::MemorySample& sample = *std::prev(after);
  QString text = QStringLiteral("At %1: %2 allocated").arg(durationText(since_ns), bytesText(sample.allocated_bytes));
  if (sample.reserved_bytes >= 0) text += QStringLiteral(", %1 reserved").arg(bytesText(sample.reserved_bytes));
  text += QStringLiteral(" (%1 of the peak).")
              .arg(toQString(reports::shareOfPeak(sample.allocated_bytes, device_->peak_allocated_bytes)));
  moment_->setText(text);
  showLayers(analyzer::liveByLayerAt(*device_, time_ns), QStringLiteral("Live at the moment clicked, by layer"));
}

bool MemoryTab::eventFilter(QObject* watched, QEvent* event) {
  if (device_ && !device_->timeline.empty() && watched == chart_view_->viewport() &&
      event->type() == QEvent::MouseButtonPress) {
    const auto* mouse = static_cast<QMouseEvent*>(event);
    const QPointF value = chart_view_->chart()->mapToValue(chart_view_->mapToScene(mouse->position().toPoint()));
    showMoment(device_->timeline.front().time_ns + static_cast<std::int64_t>(value.x() * 1e6));
  }
  return RunView::eventFilter(watched, event);
}

}  // namespace ampscope::gui
