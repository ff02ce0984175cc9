// ampscope-gui [TRACE... | FOLDER] [--compare TRACE2] [--gpu NAME] [--screenshot FILE.png [--tab NAME]]
//
// Opens the desktop app, or with --screenshot renders one tab offscreen into a PNG and exits
// (for documentation and tests; without a display it renders offscreen by itself). Without a
// display and without --screenshot it says how to run headless and exits 2.
// A folder of traces, several traces, or one trace of several processes is a distributed job:
// the Ranks tab shows it and the other tabs its slowest rank.
// --gpu NAME names the GPU as `ampscope analyze --gpu` does: the device of a trace that does not
// say, or the device of the what-if projection.

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <QApplication>
#include <QCoreApplication>
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
    std::fprintf(stderr, "ampscope gui: --tab: unknown tab '%s' (expected %s)\n", qPrintable(tab),
                 qPrintable(ampscope::gui::MainWindow::tabNames().join(", ")));
    return kExitBadInput;
  }
  for (const QStringList& paths : {traces, compare.isEmpty() ? QStringList() : QStringList{compare}}) {
    if (paths.isEmpty()) continue;
    auto inputs = RunLoader::loadNow(paths, window.analysisOptions());
    if (!inputs) {
      std::fprintf(stderr, "ampscope gui: %s\n", inputs.error().message.c_str());
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
    std::fprintf(stderr, "ampscope gui: --screenshot: cannot write %s\n", qPrintable(out));
    return 1;
  }
  return 0;
}

// What the command line asked for, read before any window system is needed.
struct Arguments {
  QStringList traces;
  QString compare;
  QString gpu;
  QString screenshot;
  QString tab;
};

// Parses the command line with a core application (no display needed), so that --help and bad
// options answer on any machine. Returns an exit code when the program should stop here.
std::optional<int> parseArguments(int argc, char** argv, Arguments& out) {
  QCoreApplication core(argc, argv);
  QCoreApplication::setApplicationName("ampscope gui");
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "ampscope: per-layer Tensor Core reports, timelines and recommendations.\n"
      "Without a display (no DISPLAY or WAYLAND_DISPLAY), render a tab headless with --screenshot.");
  const QCommandLineOption help = parser.addHelpOption();
  parser.addPositionalArgument("trace",
                               "A trace to open (any format ampscope analyze reads), or a job: a folder of its ranks' "
                               "traces or several trace files",
                               "[TRACE...]");
  const QCommandLineOption compare("compare", "A second run to compare the first with", "TRACE2");
  const QCommandLineOption shot("screenshot", "Render a tab into FILE.png and exit (works without a display)", "FILE.png");
  const QCommandLineOption gpu("gpu",
                               "The GPU (a device table row, as `ampscope analyze --gpu`): the device of a trace that "
                               "does not name one, or of the what-if projection",
                               "NAME");
  const QCommandLineOption tab("tab", "With --screenshot: the tab (" + ampscope::gui::MainWindow::tabNames().join(", ") + ")",
                               "NAME");
  parser.addOptions({compare, gpu, shot, tab});
  if (!parser.parse(QCoreApplication::arguments())) {
    std::fprintf(stderr, "ampscope gui: %s (ampscope gui --help)\n", qPrintable(parser.errorText()));
    return kExitBadInput;
  }
  if (parser.isSet(help)) {
    std::fputs(qPrintable(parser.helpText()), stdout);
    return 0;
  }
  out = {parser.positionalArguments(), parser.value(compare), parser.value(gpu), parser.value(shot), parser.value(tab)};
  return std::nullopt;
}

bool hasDisplay() {
  const auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0';
  };
  // A platform the user chose (offscreen, vnc, eglfs, ...) is theirs to know.
  return set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY");
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  if (const auto stop = parseArguments(argc, argv, args)) return *stop;
  if (!hasDisplay()) {
    if (args.screenshot.isEmpty()) {
      std::fprintf(stderr,
                   "ampscope gui: no display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it on a desktop or "
                   "with X forwarding (ssh -X), or render a tab headless: ampscope gui TRACE --screenshot FILE.png "
                   "--tab NAME (or set QT_QPA_PLATFORM=offscreen)\n");
      return kExitBadInput;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");  // a screenshot needs no screen
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("ampscope");
  QApplication::setOrganizationName("ampscope");

  ampscope::gui::MainWindow window;
  if (!args.gpu.isEmpty()) {
    // An unknown name is refused before any window shows, with the names the table knows.
    const auto options = ampscope::gui::RunLoader::optionsForGpu(args.gpu);
    if (!options) {
      std::fprintf(stderr, "ampscope gui: %s\n", options.error().message.c_str());
      return kExitBadInput;
    }
    window.setAnalysisOptions(*options);
  }
  if (!args.screenshot.isEmpty()) return screenshot(window, args.traces, args.compare, args.tab, args.screenshot);
  window.show();
  window.openPaths(args.traces);
  return QApplication::exec();
}
