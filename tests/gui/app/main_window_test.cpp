// The main window opening every shared trace, a distributed job (a folder of ranks, a file of
// several processes) and a corrupt file, offscreen, as a user would: through openFile (off the GUI
// thread), waiting for the load, then looking at what it shows.

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include "analyzer/core/device_table.h"
#include "analyzer/run_analysis.h"
#include "gui/main_window.h"
#include "gui/run_loader.h"
#include "tests/test_support.h"

namespace ampscope::gui {
namespace {

int g_argc = 1;
char g_arg0[] = "main_window_test";
char* g_argv[] = {g_arg0, nullptr};

QApplication& app() {
  static QApplication* instance = [] {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication::setOrganizationName("ampscope-tests");  // keep the user's recent files apart
    return new QApplication(g_argc, g_argv);
  }();
  return *instance;
}

// Waits for the window's load to end (up to two minutes: the largest shared trace takes seconds).
bool waitForLoad(MainWindow& window) { return QTest::qWaitFor([&] { return !window.loading(); }, 120000); }

class MainWindowSharedTraceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(MainWindowSharedTraceTest, OpensTheTraceOffTheGuiThreadAndShowsItInEveryTab) {
  app();
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, GetParam());
  MainWindow window;
  window.show();
  window.openFile(QString::fromStdString(path));
  EXPECT_TRUE(window.loading());
  ASSERT_TRUE(waitForLoad(window));
  ASSERT_TRUE(window.run() != nullptr) << path;
  EXPECT_FALSE(window.run()->trace.kernels.empty());
  EXPECT_TRUE(window.windowTitle().contains(QString::fromStdString(path).section('/', -1)));
  for (const QString& tab : MainWindow::tabNames()) {
    ASSERT_TRUE(window.selectTab(tab)) << tab.toStdString();
    QApplication::processEvents();
    EXPECT_FALSE(window.grab().isNull()) << tab.toStdString();
  }
  EXPECT_EQ(window.findChild<QMessageBox*>("loadError"), nullptr);
  EXPECT_EQ(window.job(), nullptr);  // one process: a run of its own
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, MainWindowSharedTraceTest,
                         ::testing::Values("kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz",
                                           "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz",
                                           "kineto-a100-dlrm-tf32/control.json.gz",
                                           "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
                                           "nvprof-v100-transformer-lm/net.sql"));

TEST(MainWindowJobTest, OpensAFolderOfRanksAsAJobWithItsSlowestRankInTheOtherTabsThenAnyRankPicked) {
  app();
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, "kineto-v100-dlrm-8ranks");
  MainWindow window;
  window.show();
  window.openFile(QString::fromStdString(folder));
  ASSERT_TRUE(waitForLoad(window));
  ASSERT_NE(window.job(), nullptr);
  const analyzer::JobAnalysis& job = *window.job();
  ASSERT_EQ(job.ranks.size(), 8U);
  ASSERT_TRUE(job.slowest_rank.has_value());
  auto* tabs = window.findChild<QTabWidget*>();
  EXPECT_EQ(tabs->tabText(tabs->currentIndex()), "Ranks");
  // The slowest rank is the run the other tabs show: its own file, analyzed whole.
  ASSERT_NE(window.run(), nullptr);
  EXPECT_EQ(window.shownRank(), job.slowest_rank);
  const auto fileOfRank = [&](std::int32_t rank) {
    for (const analyzer::RankResult& r : job.rank_results) {
      if (r.rank == rank) return r.file;
    }
    return std::string();
  };
  EXPECT_EQ(window.run()->path, fileOfRank(*job.slowest_rank));
  EXPECT_FALSE(window.run()->trace.kernels.empty());
  EXPECT_TRUE(window.windowTitle().endsWith(QStringLiteral("kineto-v100-dlrm-8ranks · rank %1").arg(*job.slowest_rank)))
      << window.windowTitle().toStdString();

  // Picking another rank (as the Ranks tab asks) loads it off the GUI thread; the job stays.
  const std::int32_t other = *job.slowest_rank == 0 ? 1 : 0;
  window.openRank(other);
  EXPECT_TRUE(window.loading());
  ASSERT_TRUE(waitForLoad(window));
  EXPECT_EQ(window.shownRank(), other);
  ASSERT_NE(window.run(), nullptr);
  EXPECT_EQ(window.run()->path, fileOfRank(other));
  EXPECT_EQ(window.job().get(), &job);
  for (const QString& tab : MainWindow::tabNames()) {
    ASSERT_TRUE(window.selectTab(tab)) << tab.toStdString();
    QApplication::processEvents();
    EXPECT_FALSE(window.grab().isNull()) << tab.toStdString();
  }

  // A trace of one process afterwards is a run of its own again.
  AMPSCOPE_REQUIRE_SHARED_TRACE(single, "kineto-a100-dlrm-tf32/control.json.gz");
  window.openFile(QString::fromStdString(single));
  ASSERT_TRUE(waitForLoad(window));
  EXPECT_EQ(window.job(), nullptr);
  EXPECT_EQ(window.shownRank(), std::nullopt);
  ASSERT_NE(window.run(), nullptr);
  EXPECT_EQ(window.run()->path, single);
}

TEST(MainWindowJobTest, OneFileOfSeveralProcessesOpensAsAJobToo) {
  app();
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  MainWindow window;
  window.show();
  window.openFile(QString::fromStdString(path));
  ASSERT_TRUE(waitForLoad(window));
  ASSERT_NE(window.job(), nullptr);
  EXPECT_EQ(window.job()->ranks.size(), 2U);
  ASSERT_NE(window.run(), nullptr);
  ASSERT_TRUE(window.shownRank().has_value());
  // The rank's run is its process's part of the file, not the whole file.
  const auto whole = analyzer::analyzeFile(path);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_GT(window.run()->trace.kernels.size(), 0U);
  EXPECT_LT(window.run()->trace.kernels.size(), whole->trace.kernels.size());
}

TEST(MainWindowJobTest, TheScreenshotPathLoadsAJobAndItsFirstRankOnTheCallingThread) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, "kineto-v100-dlrm-8ranks");
  const auto inputs = RunLoader::loadNow({QString::fromStdString(folder)});
  ASSERT_TRUE(inputs) << inputs.error().message;
  ASSERT_NE(inputs->job, nullptr);
  EXPECT_EQ(inputs->job->ranks.size(), 8U);
  ASSERT_TRUE(inputs->job->slowest_rank.has_value());
  EXPECT_EQ(inputs->rank, *inputs->job->slowest_rank);
  EXPECT_EQ(RunLoader::firstRankToOpen(*inputs->job), *inputs->job->slowest_rank);
  ASSERT_NE(inputs->run, nullptr);
  EXPECT_FALSE(inputs->run->trace.kernels.empty());
  const auto missing = RunLoader::loadRankNow(*inputs->job, 99);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("rank 99"), std::string::npos) << missing.error().message;
}

TEST(MainWindowTest, ACorruptFileShowsTheAnalyzersErrorAndLeavesTheWindowUsable) {
  app();
  test::ScratchDir dir;
  const std::string corrupt = dir.write("corrupt.json", "{\"traceEvents\": [{\"ph\": \"X\", \"name\": ");
  MainWindow window;
  window.show();
  window.openFile(QString::fromStdString(corrupt));
  ASSERT_TRUE(waitForLoad(window));
  auto* box = window.findChild<QMessageBox*>("loadError");
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->text().contains("corrupt.json")) << box->text().toStdString();
  EXPECT_EQ(window.run(), nullptr);
  box->close();
  QApplication::processEvents();

  // Still usable: the next file opens.
  AMPSCOPE_REQUIRE_SHARED_TRACE(good, "kineto-a100-dlrm-tf32/control.json.gz");
  window.openFile(QString::fromStdString(good));
  ASSERT_TRUE(waitForLoad(window));
  EXPECT_NE(window.run(), nullptr);
}

TEST(MainWindowTest, CancelStopsWaitingAndDropsTheLateResult) {
  app();
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  MainWindow window;
  window.show();
  window.openFile(QString::fromStdString(path));
  ASSERT_TRUE(window.loading());
  auto* cancel = window.findChild<QPushButton*>("cancelLoad");
  ASSERT_NE(cancel, nullptr);
  cancel->click();
  EXPECT_FALSE(window.loading());
  QTest::qWait(3000);  // long enough for the abandoned import to finish and report
  EXPECT_EQ(window.run(), nullptr);
}

TEST(MainWindowTest, KnowsItsTabsByName) {
  app();
  MainWindow window;
  for (const QString& tab : MainWindow::tabNames()) EXPECT_TRUE(window.selectTab(tab)) << tab.toStdString();
  EXPECT_TRUE(MainWindow::tabNames().contains("roofline"));
  EXPECT_TRUE(window.selectTab("Roofline"));
  EXPECT_EQ(window.findChild<QTabWidget*>()->tabText(window.findChild<QTabWidget*>()->currentIndex()), "Roofline");
  EXPECT_FALSE(window.selectTab("nonexistent"));
}

TEST(MainWindowTest, TheGpuOptionTakesTheDeviceTablesNamesAndRefusesOthersNamingTheKnownOnes) {
  const auto typed = RunLoader::optionsForGpu("h100-sxm");
  ASSERT_TRUE(typed) << typed.error().message;
  EXPECT_EQ(typed->gpu, "h100-sxm");
  for (const QString& wrong : {QStringLiteral("GTX 9090"), QStringLiteral(""), QStringLiteral("  ")}) {
    const auto refused = RunLoader::optionsForGpu(wrong);
    ASSERT_FALSE(refused) << wrong.toStdString();
    const std::string& message = refused.error().message;
    EXPECT_NE(message.find("unknown GPU \"" + wrong.toStdString() + "\""), std::string::npos) << message;
    EXPECT_NE(message.find(analyzer::deviceNamesList()), std::string::npos) << message;
  }
}

TEST(MainWindowTest, TheGpuOptionReachesTheAnalysisOfTheOpenedRunAndOfScreenshots) {
  app();
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  MainWindow window;
  window.show();
  const auto options = RunLoader::optionsForGpu("H100 SXM");
  ASSERT_TRUE(options);
  window.setAnalysisOptions(*options);
  EXPECT_EQ(window.analysisOptions().gpu, "H100 SXM");
  window.openFile(QString::fromStdString(path));
  ASSERT_TRUE(waitForLoad(window));
  ASSERT_NE(window.run(), nullptr);
  // The trace names its V100: the rates stay on it, and --gpu asks for a what-if on the H100.
  ASSERT_NE(window.run()->summary.device.spec, nullptr);
  EXPECT_EQ(window.run()->summary.device.spec->name, "V100 SXM2");
  ASSERT_NE(window.run()->summary.what_if.device.spec, nullptr);
  EXPECT_EQ(window.run()->summary.what_if.device.spec->name, "H100 SXM");
  // The screenshot path loads on the calling thread with the same options.
  const auto now = RunLoader::loadNow({QString::fromStdString(path)}, window.analysisOptions());
  ASSERT_TRUE(now) << now.error().message;
  EXPECT_EQ(now->job, nullptr);
  ASSERT_NE(now->run, nullptr);
  ASSERT_NE(now->run->summary.what_if.device.spec, nullptr);
  EXPECT_EQ(now->run->summary.what_if.device.spec->name, "H100 SXM");
}

}  // namespace
}  // namespace ampscope::gui
