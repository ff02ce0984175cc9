#include "gui/tabs/timeline_tab.h"

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "gui/timeline/timeline_view.h"
#include "tests/gui/timeline/timeline_test_trace.h"

namespace ampscope::gui {
namespace {

RunPtr smallRun() {
  auto run = std::make_shared<analyzer::RunAnalysis>();
  run->path = "small.json";
  run->trace = *testing::makeSmallTrace();
  return run;
}

TEST(TimelineTabTest, BuildsTheTimelineWhenShownAndForwardsTheLayerOfAClickedEvent) {
  testing::ensureApplication();
  TimelineTab tab;
  tab.resize(1200, 500);
  tab.showRun(smallRun());
  EXPECT_EQ(tab.view()->index(), nullptr);  // not shown yet: nothing built
  tab.show();
  ASSERT_NE(tab.view()->index(), nullptr);
  EXPECT_EQ(tab.view()->index()->eventCount(), 11U);

  QSignalSpy layers(&tab, &RunView::layerSelected);
  const std::int32_t row = tab.view()->index()->lanes()[0].first_row;
  tab.view()->select(tab.view()->index()->hitTest(row, 1'650'000, 0));
  ASSERT_EQ(layers.count(), 1);
  EXPECT_EQ(layers.at(0).at(0).toString(), QStringLiteral("encoder.fc2"));

  tab.showRun(smallRun());  // visible: rebuilt at once
  EXPECT_NE(tab.view()->index(), nullptr);
  EXPECT_FALSE(tab.view()->selection().valid());
  tab.showRun(nullptr);
  EXPECT_EQ(tab.view()->index(), nullptr);
}

TEST(TimelineTabTest, AScrollBarAppearsWhenTheLanesOverflowAndScrollsThem) {
  testing::ensureApplication();
  TimelineTab tab;
  tab.resize(900, 600);
  tab.showRun(smallRun());
  tab.show();
  auto* bar = tab.findChild<QScrollBar*>();
  ASSERT_NE(bar, nullptr);
  EXPECT_FALSE(bar->isVisible());  // seven rows fit in 600 pixels
  tab.resize(900, 150);
  QApplication::processEvents();  // the layout resizes the view
  ASSERT_TRUE(bar->isVisible());
  ASSERT_GT(bar->maximum(), 20);
  bar->setValue(20);
  EXPECT_EQ(tab.view()->scrollY(), 20);
  tab.view()->panByPixels(0, 5);
  EXPECT_EQ(bar->value(), 25);
}

}  // namespace
}  // namespace ampscope::gui
