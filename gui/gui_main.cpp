// ampscope-gui [TRACE] [--compare TRACE2] [--screenshot FILE.png [--tab NAME]]
//
// Opens the desktop app, or with --screenshot renders one tab offscreen into a PNG and exits
// (for documentation and tests; set QT_QPA_PLATFORM=offscreen where there is no display).

#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>

#include "gui/main_window.h"
#include "gui/run_loader.h"

namespace {

constexpr int kExitBadInput = 2;

// Loads the traces on this thread, shows the tab and saves the window as a PNG.
int screenshot(ampscope::gui::MainWindow& window, const QString& trace, const QString& compare, const QString& tab,
               const QString& out) {
  using ampscope::gui::RunLoader;
  if (!tab.isEmpty() && !window.selectTab(tab)) {
    std::fprintf(stderr, "ampscope-gui: --tab: unknown tab '%s' (expected %s)\n", qPrintable(tab),
                 qPrintable(ampscope::gui::MainWindow::tabNames().join(", ")));
    return kExitBadInput;
  }
  for (const QString& path : {trace, compare}) {
    if (path.isEmpty()) continue;
    auto run = RunLoader::loadNow(path);
    if (!run) {
      std::fprintf(stderr, "ampscope-gui: %s\n", run.error().message.c_str());
      return kExitBadInput;
    }
    if (path == trace) {
      window.showRun(*run);
    } else {
      window.showComparison(*run);
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
  parser.addPositionalArgument("trace", "A trace to open (any format ampscope analyze reads)", "[TRACE]");
  const QCommandLineOption compare("compare", "A second run to compare the first with", "TRACE2");
  const QCommandLineOption shot("screenshot", "Render a tab into FILE.png and exit", "FILE.png");
  const QCommandLineOption tab("tab", "With --screenshot: the tab (" + ampscope::gui::MainWindow::tabNames().join(", ") + ")",
                               "NAME");
  parser.addOptions({compare, shot, tab});
  parser.process(app);
  const QStringList positional = parser.positionalArguments();
  const QString trace = positional.isEmpty() ? QString() : positional.front();

  ampscope::gui::MainWindow window;
  if (parser.isSet(shot)) {
    return screenshot(window, trace, parser.value(compare), parser.value(tab), parser.value(shot));
  }
  window.show();
  if (!trace.isEmpty()) window.openFile(trace);
  return QApplication::exec();
}
