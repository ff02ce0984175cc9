#include "gui/timeline/timeline_view.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include "tests/gui/timeline/timeline_test_trace.h"

namespace ampscope::gui {
namespace {

using testing::kTensorCoreGemm;
using testing::kTraceStartNs;

class TimelineViewTest : public ::testing::Test {
 protected:
  // Before any test object exists: the fixture's widget needs the application.
  static void SetUpTestSuite() { testing::ensureApplication(); }

  void SetUp() override {
    view_.resize(1200, 400);
    index_ = std::make_shared<const TimelineIndex>(testing::makeSmallTrace());
    view_.setIndex(index_);
  }

  double span() const { return view_.windowEndNs() - view_.windowStartNs(); }
  std::int32_t stream7Row() const { return index_->lanes()[0].first_row; }
  // Widget x of a trace time (absolute ns).
  int xOf(std::int64_t trace_ns) const {
    return static_cast<int>(view_.xAtTime(static_cast<double>(trace_ns - kTraceStartNs)));
  }

  void wheel(const QPoint& pos, int angle_y, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    QWheelEvent event(pos, view_.mapToGlobal(pos), QPoint(), QPoint(0, angle_y), Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view_, &event);
  }
  void mouse(QEvent::Type type, const QPoint& pos, Qt::MouseButton button, Qt::MouseButtons buttons) {
    QMouseEvent event(type, pos, view_.mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(&view_, &event);
  }
  void click(const QPoint& pos) {
    mouse(QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton);
    mouse(QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
  }

  // The share of the pixels of row's bars between two trace times that have exactly color.
  double share(const QImage& image, std::int32_t row, std::int64_t from_ns, std::int64_t to_ns,
               const QColor& color) const {
    const int top = view_.rowCenterY(row) - TimelinePainter::kRowHeight / 2 + 1;
    int matching = 0;
    int total = 0;
    for (int x = xOf(from_ns) + 1; x < xOf(to_ns) - 1; ++x) {
      for (int y = top; y < top + TimelinePainter::kRowHeight - 2; ++y) {
        matching += image.pixelColor(x, y).rgb() == color.rgb() ? 1 : 0;
        ++total;
      }
    }
    return total == 0 ? 0.0 : static_cast<double>(matching) / total;
  }

  static inline const QColor kBlank{255, 255, 255};
  TimelineView view_;
  std::shared_ptr<const TimelineIndex> index_;
};

TEST_F(TimelineViewTest, StartsWithTheWholeTraceInView) {
  EXPECT_LT(view_.windowStartNs(), 0.0);
  EXPECT_GT(view_.windowEndNs(), 1'000'000.0);
  EXPECT_LT(span(), 1'100'000.0);
}

TEST_F(TimelineViewTest, WheelZoomKeepsTheTimeUnderTheCursorFixed) {
  const QPoint cursor(700, 100);
  const double before = view_.timeAtX(cursor.x());
  const double span_before = span();
  wheel(cursor, 120);
  EXPECT_NEAR(span(), span_before * 0.8, 1e-6 * span_before);
  EXPECT_NEAR(view_.timeAtX(cursor.x()), before, 1e-6 * span_before);
  for (int i = 0; i < 10; ++i) wheel(cursor, 240);
  EXPECT_LT(span(), span_before * 0.01);
  EXPECT_NEAR(view_.timeAtX(cursor.x()), before, 1e-6 * span_before);
  wheel(cursor, -120);
  EXPECT_NEAR(view_.timeAtX(cursor.x()), before, 1e-6 * span_before);
}

TEST_F(TimelineViewTest, DraggingMovesTheTimeUnderTheCursorWithIt) {
  wheel(QPoint(700, 100), 600);  // zoomed in, so there is room to pan
  const double grabbed = view_.timeAtX(800);
  const int rows_y = view_.rowCenterY(0);
  mouse(QEvent::MouseButtonPress, QPoint(800, rows_y), Qt::LeftButton, Qt::LeftButton);
  mouse(QEvent::MouseMove, QPoint(750, rows_y), Qt::NoButton, Qt::LeftButton);
  mouse(QEvent::MouseMove, QPoint(700, rows_y), Qt::NoButton, Qt::LeftButton);
  mouse(QEvent::MouseButtonRelease, QPoint(700, rows_y), Qt::LeftButton, Qt::NoButton);
  EXPECT_NEAR(view_.timeAtX(700), grabbed, 1e-6 * span());
  EXPECT_FALSE(view_.selection().valid());  // a drag is not a click
}

TEST_F(TimelineViewTest, KeysZoomAroundTheMiddlePanAndFitTheWholeTraceAgain) {
  const double fitted_start = view_.windowStartNs();
  const double fitted_end = view_.windowEndNs();
  const double middle = (fitted_start + fitted_end) / 2.0;
  QTest::keyClick(&view_, Qt::Key_Plus);
  EXPECT_NEAR(span(), (fitted_end - fitted_start) / 2.0, 1e-3);
  EXPECT_NEAR((view_.windowStartNs() + view_.windowEndNs()) / 2.0, middle, 1e-3);
  const double start = view_.windowStartNs();
  QTest::keyClick(&view_, Qt::Key_Right);
  EXPECT_NEAR(view_.windowStartNs() - start, 0.2 * span(), 1e-3);
  QTest::keyClick(&view_, Qt::Key_Minus);
  QTest::keyClick(&view_, Qt::Key_Plus);
  QTest::keyClick(&view_, Qt::Key_Plus);
  QTest::keyClick(&view_, Qt::Key_Home);
  EXPECT_DOUBLE_EQ(view_.windowStartNs(), fitted_start);
  EXPECT_DOUBLE_EQ(view_.windowEndNs(), fitted_end);
  QTest::keyClick(&view_, Qt::Key_Plus);
  QTest::keyClick(&view_, Qt::Key_0);
  EXPECT_DOUBLE_EQ(view_.windowStartNs(), fitted_start);
}

TEST_F(TimelineViewTest, ZoomStopsAtAHundredNanosecondsAndJustBeyondTheWholeTrace) {
  for (int i = 0; i < 60; ++i) wheel(QPoint(700, 100), 120);
  EXPECT_NEAR(span(), 100.0, 1e-6);
  for (int i = 0; i < 80; ++i) wheel(QPoint(700, 100), -120);
  EXPECT_NEAR(span(), 1'100'000.0, 1e-3);
}

TEST_F(TimelineViewTest, ClickingAKernelSelectsItAndEmitsItsLayer) {
  QSignalSpy layers(&view_, &TimelineView::layerSelected);
  const QPoint on_gemm(xOf(1'250'000), view_.rowCenterY(stream7Row()));
  click(on_gemm);
  ASSERT_TRUE(view_.selection().valid());
  EXPECT_EQ(view_.selection().row, stream7Row());
  EXPECT_EQ(index_->event(view_.selection()).source, kTensorCoreGemm);
  ASSERT_EQ(layers.count(), 1);
  EXPECT_EQ(layers.at(0).at(0).toString(), QStringLiteral("encoder.fc1"));

  click(QPoint(xOf(1'450'000), view_.rowCenterY(stream7Row())));  // idle time on the stream
  EXPECT_FALSE(view_.selection().valid());
  const QPoint on_all_reduce(xOf(1'500'000), view_.rowCenterY(index_->lanes()[1].first_row));
  click(on_all_reduce);
  EXPECT_TRUE(view_.selection().valid());
  EXPECT_EQ(layers.count(), 1);  // the all-reduce belongs to no layer
}

TEST_F(TimelineViewTest, AnOffscreenFramePaintsEachEventInItsOwnLane) {
  QImage image(view_.size(), QImage::Format_ARGB32_Premultiplied);
  const TimelineFrameStats stats = view_.renderFrame(image);
  EXPECT_EQ(stats.items, 11U);
  const auto& rows = index_->rows();
  const TimelineRow& stream7 = rows[static_cast<std::size_t>(stream7Row())];
  const QColor gemm = TimelinePainter::colorOf(stream7[0].style, stream7[0].shade);
  const QColor sgemm = TimelinePainter::colorOf(stream7[2].style, stream7[2].shade);
  ASSERT_NE(gemm.rgb(), sgemm.rgb());  // Tensor Core and CUDA-core GEMMs look different
  // Most of a bar is its colour (a name may be written over part of it); idle time is blank.
  EXPECT_GT(share(image, stream7Row(), 1'200'000, 1'300'000, gemm), 0.5);
  EXPECT_GT(share(image, stream7Row(), 1'600'000, 1'700'000, sgemm), 0.5);
  // Idle time and time past the end are blank but for the time grid's lines.
  EXPECT_GT(share(image, stream7Row(), 1'400'000, 1'550'000, kBlank), 0.95);
  EXPECT_GT(share(image, stream7Row(), 2'002'000, 2'010'000, kBlank), 0.95);
  const std::int32_t stream13 = index_->lanes()[1].first_row;
  const TimelineEvent& all_reduce = rows[static_cast<std::size_t>(stream13)][0];
  const QColor reduce_color = TimelinePainter::colorOf(all_reduce.style, all_reduce.shade);
  EXPECT_GT(share(image, stream13, 1'250'000, 1'900'000, reduce_color), 0.5);
  EXPECT_EQ(share(image, stream13, 1'000'000, 1'240'000, reduce_color), 0.0);
  // The step range fills the first row of the main thread; the operators only their own time.
  const std::int32_t main = index_->lanes()[3].first_row;
  const TimelineEvent& step = rows[static_cast<std::size_t>(main)][0];
  EXPECT_GT(share(image, main, 1'000'000, 2'000'000, TimelinePainter::colorOf(step.style, step.shade)), 0.5);
  const TimelineEvent& linear = rows[static_cast<std::size_t>(main + 2)][0];
  const QColor linear_color = TimelinePainter::colorOf(linear.style, linear.shade);
  EXPECT_GT(share(image, main + 2, 1'150'000, 1'350'000, linear_color), 0.5);
  EXPECT_EQ(share(image, main + 2, 1'360'000, 1'540'000, linear_color), 0.0);
}

TEST_F(TimelineViewTest, ASelectedEventIsOutlined) {
  QImage plain(view_.size(), QImage::Format_ARGB32_Premultiplied);
  view_.renderFrame(plain);
  view_.select(index_->hitTest(stream7Row(), 1'250'000, 0));
  QImage selected(view_.size(), QImage::Format_ARGB32_Premultiplied);
  view_.renderFrame(selected);
  const int top = view_.rowCenterY(stream7Row()) - TimelinePainter::kRowHeight / 2;
  EXPECT_NE(plain.pixelColor(xOf(1'250'000), top), selected.pixelColor(xOf(1'250'000), top));
  EXPECT_EQ(selected.pixelColor(xOf(1'250'000), top).rgb(), QColor(0, 0, 0).rgb());
}

TEST_F(TimelineViewTest, TheWidgetPaintsExactlyTheFrameThatRenderFrameGives) {
  view_.select(index_->hitTest(stream7Row(), 1'250'000, 0));
  QImage rendered(view_.size(), QImage::Format_ARGB32_Premultiplied);
  view_.renderFrame(rendered);
  const QImage painted = view_.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
  EXPECT_TRUE(painted == rendered);
}

TEST_F(TimelineViewTest, HoveringAKernelShowsItsNameDurationAndLayer) {
  view_.show();
  const QPoint on_gemm(xOf(1'250'000), view_.rowCenterY(stream7Row()));
  QHelpEvent help(QEvent::ToolTip, on_gemm, view_.mapToGlobal(on_gemm));
  QApplication::sendEvent(&view_, &help);
  const QString text = QToolTip::text();
  EXPECT_TRUE(text.contains(QStringLiteral("ampere_fp16_s16816gemm"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("100 µs"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("layer: encoder.fc1"))) << text.toStdString();
  const QPoint idle(xOf(1'450'000), view_.rowCenterY(stream7Row()));
  QHelpEvent nothing(QEvent::ToolTip, idle, view_.mapToGlobal(idle));
  QApplication::sendEvent(&view_, &nothing);
  EXPECT_FALSE(nothing.isAccepted());  // no event there: no tooltip
}

TEST(TimelineViewEmptyTest, DrawsAMessageWhenNoRunIsLoaded) {
  testing::ensureApplication();
  TimelineView view;
  view.resize(600, 200);
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  EXPECT_EQ(view.renderFrame(image).items, 0U);
  bool any_text = false;
  for (int x = 0; x < image.width() && !any_text; ++x) {
    for (int y = 0; y < image.height() && !any_text; ++y) any_text = image.pixelColor(x, y) != QColor(255, 255, 255);
  }
  EXPECT_TRUE(any_text);
  EXPECT_FALSE(view.hitAt(QPoint(300, 100)).valid());
}

}  // namespace
}  // namespace ampscope::gui
