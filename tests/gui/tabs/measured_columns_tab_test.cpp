// The Kernels and Layers tabs, offscreen, on a run with hardware counters (filled as the counter
// analysis fills them, tests/gui/models/model_test_runs.h): "Tensor pipe active (measured)" is
// shown beside the verdict, and hidden on a run without counters. With AMPSCOPE_TAB_SHOTS=DIR set,
// each tab is also written to DIR as a PNG to look at.

#include <cstdlib>
#include <memory>

#include <QHeaderView>
#include <QImage>
#include <QTableView>

#include <gtest/gtest.h>

#include "gui/models/kernels_model.h"
#include "gui/models/layers_model.h"
#include "gui/tabs/kernels_tab.h"
#include "gui/tabs/layers_tab.h"
#include "tests/gui/models/model_test_runs.h"
#include "tests/gui/tabs/tab_test_support.h"

namespace ampscope::gui {
namespace {

RunPtr countedRun() { return std::make_shared<analyzer::RunAnalysis>(ampscope::test::gpuLayersRunWithCounters()); }
RunPtr uncountedRun() { return std::make_shared<analyzer::RunAnalysis>(ampscope::test::gpuLayersRun()); }

// Renders the tab at a size that shows its table whole, and keeps the picture where asked.
void grab(QWidget& tab, const char* name) {
  tab.resize(1500, 700);
  tab.show();
  const QImage image = tab.grab().toImage();
  EXPECT_FALSE(image.isNull());
  if (const char* dir = std::getenv("AMPSCOPE_TAB_SHOTS")) {
    EXPECT_TRUE(image.save(QString::fromUtf8(dir) + "/" + name + ".png")) << name;
  }
}

// The header's text where the column is shown; "" where it is hidden.
QString shownHeader(const QTableView& table, int column) {
  if (table.isColumnHidden(column)) return {};
  return table.model()->headerData(column, Qt::Horizontal).toString();
}

TEST(MeasuredColumnsTabTest, KernelsTabShowsTheMeasuredShareBesideTheVerdictOnlyWithCounters) {
  test::app();
  KernelsTab tab;
  tab.showRun(countedRun());
  auto* table = test::child<QTableView>(tab, "kernelsTable");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(shownHeader(*table, KernelsModel::kMeasuredActive), "Tensor pipe active (measured)");
  // Beside the verdict on screen too.
  EXPECT_EQ(table->horizontalHeader()->visualIndex(KernelsModel::kMeasuredActive),
            table->horizontalHeader()->visualIndex(KernelsModel::kVerdict) + 1);
  grab(tab, "kernels_with_counters");
  tab.showRun(uncountedRun());
  EXPECT_EQ(shownHeader(*table, KernelsModel::kMeasuredActive), "");
}

TEST(MeasuredColumnsTabTest, LayersTabShowsTheMeasuredShareBesideTheTensorCoreShareOnlyWithCounters) {
  test::app();
  LayersTab tab;
  tab.showRun(countedRun());
  auto* table = test::child<QTableView>(tab, "layersTable");
  auto* kernels = test::child<QTableView>(tab, "layerKernelsTable");
  ASSERT_NE(table, nullptr);
  ASSERT_NE(kernels, nullptr);
  EXPECT_EQ(shownHeader(*table, LayersModel::kMeasuredActive), "Tensor pipe active (measured)");
  EXPECT_EQ(shownHeader(*kernels, KernelsModel::kMeasuredActive), "Tensor pipe active (measured)");
  grab(tab, "layers_with_counters");
  tab.showRun(uncountedRun());
  EXPECT_EQ(shownHeader(*table, LayersModel::kMeasuredActive), "");
  EXPECT_EQ(shownHeader(*kernels, KernelsModel::kMeasuredActive), "");
}

}  // namespace
}  // namespace ampscope::gui
