#pragma once
// Shared by the tab tests: one offscreen QApplication, runs made from the synthetic trainer trace
// (summarized as analyzer::analyzeFile does) and from the shared real traces (loaded once per
// binary: the tests only read them), and a look-up of a tab's child by object name.

#include <map>
#include <memory>
#include <string>

#include <QApplication>
#include <QString>
#include <QWidget>

#include <gtest/gtest.h>

#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/run_analysis.h"
#include "gui/run_view.h"
#include "tests/analyzer/trainer_cpu_trace.h"
#include "tests/test_support.h"

namespace ampscope::gui::test {

inline QApplication& app() {
  static int argc = 1;
  static char arg0[] = "gui_tabs_tests";
  static char* argv[] = {arg0, nullptr};
  static QApplication* instance = [] {
    // CTest sets it too; here for a binary started by hand.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    return new QApplication(argc, argv);
  }();
  return *instance;
}

// The run of a trace built in code, as analyzer::analyzeFile would make it from a file: its range
// texts read as an importer reads them, then analyzed.
inline RunPtr runOf(trace::Trace trace, const std::string& path) {
  analyzer::import::normaliseRanges(trace);
  return std::make_shared<analyzer::RunAnalysis>(analyzer::analyzeTrace(std::move(trace), path));
}

// `ampscope train --profile` on the CPU backend: 6 steps of 10 ms, step 3 skipped
// (tests/analyzer/trainer_cpu_trace.h).
inline RunPtr trainerRun() { return runOf(ampscope::test::trainerCpuTrace(), "/runs/trainer-cpu.ampscope"); }

// A shared trace, analyzed once per test binary; nullptr when the folder is absent.
inline RunPtr sharedRun(const std::string& relative) {
  static std::map<std::string, RunPtr> loaded;
  if (const auto found = loaded.find(relative); found != loaded.end()) return found->second;
  const std::string path = ampscope::test::sharedTrace(relative);
  if (path.empty()) return nullptr;
  auto run = analyzer::analyzeFile(path);
  EXPECT_TRUE(run.ok()) << (run.ok() ? std::string() : run.error().message);
  if (!run.ok()) return nullptr;
  RunPtr shared = std::make_shared<analyzer::RunAnalysis>(std::move(run).value());
  loaded.emplace(relative, shared);
  return shared;
}

inline constexpr const char* kResnetWorkers0 = "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz";
inline constexpr const char* kResnetWorkers4 = "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz";

#define AMPSCOPE_REQUIRE_SHARED_RUN(var, relative)                                                    \
  const ::ampscope::gui::RunPtr var = ::ampscope::gui::test::sharedRun(relative);                     \
  if (!var) GTEST_SKIP() << "shared trace " << (relative) << " not found under " << AMPSCOPE_SHARED_TRACES

// The tab's child named name; a test fails rather than crashes on a renamed widget.
template <typename T>
T* child(const QWidget& parent, const char* name) {
  T* found = parent.findChild<T*>(QString::fromLatin1(name));
  EXPECT_NE(found, nullptr) << "no child named " << name;
  return found;
}

}  // namespace ampscope::gui::test
