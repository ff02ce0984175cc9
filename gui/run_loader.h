#pragma once
// Loads and analyzes traces off the GUI thread: one run, or a distributed job (a folder of
// ranks' traces, several trace files, or one file that holds several processes) followed by the
// complete analysis of the rank the window opens first, or later of any rank the user picks.
// Progress and results come back as signals on the GUI thread. Cancel abandons the load: the
// window stops waiting at once and the result, when the import finishes, is dropped (importers
// cannot be interrupted midway).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>

#include "analyzer/core/analysis_options.h"
#include "gui/run_view.h"

namespace ampscope::gui {

class RunLoader : public QObject {
  Q_OBJECT

 public:
  // What paths hold: one run, or a job (whose ranks' runs are loaded one at a time) and the run of
  // the rank it opens with.
  struct Inputs {
    JobPtr job;              // null for one run
    RunPtr run;              // the run, or the job's rank's run
    std::int32_t rank = -1;  // with a job: the rank of run
  };

  explicit RunLoader(QObject* parent = nullptr);
  ~RunLoader() override;

  // The options of --gpu NAME, checked against the device table: an unknown (or empty) name is an
  // error that lists the names the table knows.
  static trace::Result<analyzer::AnalysisOptions> optionsForGpu(const QString& gpu);

  // What the user told the app that a trace may not say (--gpu NAME): every later load uses it.
  void setOptions(analyzer::AnalysisOptions options) { options_ = std::move(options); }
  const analyzer::AnalysisOptions& options() const { return options_; }

  // Starts loading paths (trace files and folders of them); a load in progress is abandoned. One
  // trace of one process gives loaded; a job gives jobLoaded, then rankLoaded with the rank
  // firstRankToOpen names.
  void load(const QStringList& paths);
  void load(const QString& path) { load(QStringList{path}); }
  // Starts loading the complete analysis of job's rank; gives rankLoaded.
  void loadRank(JobPtr job, std::int32_t rank);
  void cancel();
  bool busy() const { return busy_; }

  // The rank a job opens with: the slowest, else the lowest.
  static std::int32_t firstRankToOpen(const analyzer::JobAnalysis& job);

  // The same work on the calling thread (command-line screenshots and tests): what paths hold,
  // with a job the run of its firstRankToOpen, and the complete analysis of one rank of a job.
  static trace::Result<Inputs> loadNow(const QStringList& paths, const analyzer::AnalysisOptions& options = {});
  static trace::Result<RunPtr> loadRankNow(const analyzer::JobAnalysis& job, std::int32_t rank,
                                           const analyzer::AnalysisOptions& options = {});

 signals:
  // fraction in [0, 1], or -1 when the importer cannot tell.
  void progress(double fraction);
  void loaded(ampscope::gui::RunPtr run);
  void jobLoaded(ampscope::gui::JobPtr job);
  void rankLoaded(std::int32_t rank, ampscope::gui::RunPtr run);
  void failed(const QString& message);

 private:
  // Hands a result to the GUI thread, where it is delivered only while its load is current.
  using Post = std::function<void(std::function<void()>)>;
  // Runs work on a thread of its own as a new load (abandoning the one in progress).
  void start(std::function<void(const Post&)> work);
  // Reports progress of the current load in steps of 1 %, not per callback.
  static std::function<void(std::uint64_t, std::uint64_t)> progressReporter(RunLoader* self, const Post& post);
  // On a load's thread: rank's complete analysis, delivered as rankLoaded (or failed).
  void readRank(const Post& post, const analyzer::JobAnalysis& job, std::int32_t rank,
                const analyzer::AnalysisOptions& options);
  void postFailure(const Post& post, const trace::Error& error);

  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  };
  // Each load gets a generation; results of abandoned generations are dropped.
  std::shared_ptr<std::atomic<int>> generation_ = std::make_shared<std::atomic<int>>(0);
  bool busy_ = false;
  analyzer::AnalysisOptions options_;
  std::vector<Worker> workers_;
};

}  // namespace ampscope::gui
