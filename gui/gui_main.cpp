// ampscope-gui [TRACE... | FOLDER] [--compare TRACE2] [--gpu NAME] [--screenshot FILE.png [--tab NAME]]
//
// Opens the desktop app, or with --screenshot renders one tab offscreen into a PNG and exits
// (for documentation and tests; set QT_QPA_PLATFORM=offscreen where there is no display).
// A folder of traces, several traces, or one trace of several processes is a distributed job:
// the Ranks tab shows it and the other tabs its slowest rank.
// --gpu NAME names the GPU as `ampscope analyze --gpu` does: the device of a trace that does not
// say, or the device of the what-if projection.

#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>

#include "gui/main_window.h"
#include "gui/run_loader.h"

namespace {

constexpr int kExitBadInput = 2;

// Loads the traces on this thread, shows the tab and saves the window as a PNG.
int screenshot(ampscope::gui::MainWindow& window, const QStringList& traces, const QString& compare, const QString& tab,
               const QString& out) {
  using ampscope::gui::RunLoader;
  if (!tab.isEmpty() && !window.selectTab(tab)) {
    std::fprintf(stderr, "ampscope-gui: --tab: unknown tab '%s' (expected %s)\n", qPrintable(tab),
                 qPrintable(ampscope::gui::MainWindow::tabNames().join(", ")));
    return kExitBadInput;
  }
  for (const QStringList& paths : {traces, compare.isEmpty() ? QStringList() : QStringList{compare}}) {
    if (paths.isEmpty()) continue;
    auto inputs = RunLoader::loadNow(paths, window.analysisOptions());
    if (!inputs) {
      std::fprintf(stderr, "ampscope-gui: %s\n", inputs.error().message.c_str());
      return kExitBadInput;
    }
    if (paths != traces) {
      window.showComparison(inputs->run);  // a job is compared by the rank it opens with
    } else if (inputs->job) {
      window.showJob(inputs->job);
      window.showRank(inputs->rank, inputs->run);
    } else {
      window.showRun(inputs->run);
    }
  }
  if (!tab.isEmpty()) window.selectTab(tab);
  window.show();
  QApplication::processEvents();
  if (!window.grab().save(out)) {
    std::fprintf(stderr, "ampscope-gui: --screenshot: cannot write %s\n", qPrintable(out));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("ampscope");
  QApplication::setOrganizationName("ampscope");
  QCommandLineParser parser;
  parser.setApplicationDescription("ampscope: per-layer Tensor Core reports, timelines and recommendations");
  parser.addHelpOption();
  parser.addPositionalArgument("trace",
                               "A trace to open (any format ampscope analyze reads), or a job: a folder of its ranks' "
                               "traces or several trace files",
                               "[TRACE...]");
  const QCommandLineOption compare("compare", "A second run to compare the first with", "TRACE2");
  const QCommandLineOption shot("screenshot", "Render a tab into FILE.png and exit", "FILE.png");
  const QCommandLineOption gpu("gpu",
                               "The GPU (a device table row, as `ampscope analyze --gpu`): the device of a trace that "
                               "does not name one, or of the what-if projection",
                               "NAME");
  const QCommandLineOption tab("tab", "With --screenshot: the tab (" + ampscope::gui::MainWindow::tabNames().join(", ") + ")",
                               "NAME");
  parser.addOptions({compare, gpu, shot, tab});
  parser.process(app);
  const QStringList traces = parser.positionalArguments();

  ampscope::gui::MainWindow window;
  if (parser.isSet(gpu)) {
    // An unknown name is refused before any window shows, with the names the table knows.
    const auto options = ampscope::gui::RunLoader::optionsForGpu(parser.value(gpu));
    if (!options) {
      std::fprintf(stderr, "ampscope-gui: %s\n", options.error().message.c_str());
      return kExitBadInput;
    }
    window.setAnalysisOptions(*options);
  }
  if (parser.isSet(shot)) {
    return screenshot(window, traces, parser.value(compare), parser.value(tab), parser.value(shot));
  }
  window.show();
  window.openPaths(traces);
  return QApplication::exec();
}
