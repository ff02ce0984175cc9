#pragma once
// Loads and analyzes a trace off the GUI thread. Progress and the result come back as signals on
// the GUI thread. Cancel abandons the load: the window stops waiting at once and the result, when
// the import finishes, is dropped (importers cannot be interrupted midway).

#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <QObject>
#include <QString>

#include "analyzer/analysis_options.h"
#include "gui/run_view.h"

namespace ampscope::gui {

class RunLoader : public QObject {
  Q_OBJECT

 public:
  explicit RunLoader(QObject* parent = nullptr);
  ~RunLoader() override;

  // The options of --gpu NAME, checked against the device table: an unknown (or empty) name is an
  // error that lists the names the table knows.
  static trace::Result<analyzer::AnalysisOptions> optionsForGpu(const QString& gpu);

  // What the user told the app that a trace may not say (--gpu NAME): every later load uses it.
  void setOptions(analyzer::AnalysisOptions options) { options_ = std::move(options); }
  const analyzer::AnalysisOptions& options() const { return options_; }

  // Starts loading path; a load in progress is abandoned.
  void load(const QString& path);
  void cancel();
  bool busy() const { return busy_; }

  // The same work on the calling thread (command-line screenshots and tests).
  static trace::Result<RunPtr> loadNow(const QString& path, const analyzer::AnalysisOptions& options = {});

 signals:
  // fraction in [0, 1], or -1 when the importer cannot tell.
  void progress(double fraction);
  void loaded(ampscope::gui::RunPtr run);
  void failed(const QString& message);

 private:
  // Each load gets a generation; results of abandoned generations are dropped.
  std::shared_ptr<std::atomic<int>> generation_ = std::make_shared<std::atomic<int>>(0);
  bool busy_ = false;
  analyzer::AnalysisOptions options_;
  std::vector<std::thread> threads_;
};

}  // namespace ampscope::gui
