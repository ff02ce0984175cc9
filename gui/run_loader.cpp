#include "gui/run_loader.h"

#include <QMetaObject>

#include "analyzer/core/device_table.h"
#include "analyzer/job_files.h"

namespace ampscope::gui {

namespace {

using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// As `ampscope analyze` reads its inputs: one trace is a run, unless it holds several processes'
// GPU work (each process a rank); several traces (a folder of them) are a job, read in parallel.
// The single trace is imported once, whichever it turns out to be. A job's runs are left to load.
trace::Result<RunLoader::Inputs> readInputs(const QStringList& paths, const analyzer::AnalysisOptions& options,
                                            const Progress& progress) {
  std::vector<std::string> given;
  for (const QString& path : paths) given.push_back(path.toStdString());
  const analyzer::JobReadOptions read{.analysis = options,
                                      .progress = [&](std::size_t done, std::size_t total) {
                                        if (progress) progress(done, total);
                                      }};
  auto analyzed = analyzer::analyzeRunOrJob(given, read, progress);
  if (!analyzed) return analyzed.error();
  RunLoader::Inputs out;
  if (analyzed->job) out.job = std::make_shared<const analyzer::JobAnalysis>(std::move(*analyzed->job));
  if (analyzed->run) out.run = std::make_shared<const analyzer::RunAnalysis>(std::move(*analyzed->run));
  return out;
}

}  // namespace

RunLoader::RunLoader(QObject* parent) : QObject(parent) {}

RunLoader::~RunLoader() {
  // A load in flight finishes before the loader goes (its result is dropped): the thread must
  // not outlive the objects it reports to.
  generation_->fetch_add(1);
  for (Worker& worker : workers_) worker.thread.join();
}

trace::Result<analyzer::AnalysisOptions> RunLoader::optionsForGpu(const QString& gpu) {
  analyzer::AnalysisOptions options;
  const std::string name = gpu.trimmed().toStdString();
  if (name.empty() || !analyzer::findDevice(name)) {
    return trace::Error{"--gpu: unknown GPU \"" + gpu.toStdString() + "\"; known: " + analyzer::deviceNamesList()};
  }
  options.gpu = name;
  return options;
}

std::int32_t RunLoader::firstRankToOpen(const analyzer::JobAnalysis& job) {
  if (job.slowest_rank) return *job.slowest_rank;
  return job.ranks.empty() ? 0 : job.ranks.front().rank;
}

trace::Result<RunLoader::Inputs> RunLoader::loadNow(const QStringList& paths,
                                                    const analyzer::AnalysisOptions& options) {
  auto inputs = readInputs(paths, options, {});
  if (!inputs || !inputs->job) return inputs;
  inputs->rank = firstRankToOpen(*inputs->job);
  auto run = loadRankNow(*inputs->job, inputs->rank, options);
  if (!run) return run.error();
  inputs->run = *run;
  return inputs;
}

trace::Result<RunPtr> RunLoader::loadRankNow(const analyzer::JobAnalysis& job, std::int32_t rank,
                                             const analyzer::AnalysisOptions& options) {
  auto run = analyzer::analyzeRankOfJob(job, rank, options);
  if (!run) return run.error();
  return RunPtr(std::make_shared<const analyzer::RunAnalysis>(std::move(run).value()));
}

void RunLoader::start(std::function<void(const Post&)> work) {
  // Threads of finished loads are joined here, so that opening rank after rank does not pile them up.
  std::erase_if(workers_, [](Worker& worker) {
    if (!worker.done->load()) return false;
    worker.thread.join();
    return true;
  });
  const int mine = generation_->fetch_add(1) + 1;
  busy_ = true;
  Worker worker;
  // this stays alive until the thread is joined (here or in the destructor).
  worker.thread = std::thread([this, generation = generation_, mine, done = worker.done, work = std::move(work)] {
    const Post post = [this, generation, mine](std::function<void()> deliver) {
      if (generation->load() != mine) return;  // abandoned: nothing more to say
      QMetaObject::invokeMethod(
          this, [generation, mine, deliver = std::move(deliver)] {
            if (generation->load() == mine) deliver();
          },
          Qt::QueuedConnection);
    };
    work(post);
    done->store(true);
  });
  workers_.push_back(std::move(worker));
}

std::function<void(std::uint64_t, std::uint64_t)> RunLoader::progressReporter(RunLoader* self, const Post& post) {
  auto reported = std::make_shared<double>(-1.0);
  return [self, post, reported](std::uint64_t done, std::uint64_t total) {
    const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : -1.0;
    if (fraction >= 0 && *reported >= 0 && fraction - *reported < 0.01) return;
    *reported = fraction;
    post([self, fraction] { emit self->progress(fraction); });
  };
}

void RunLoader::load(const QStringList& paths) {
  start([this, paths, options = options_](const Post& post) {
    auto inputs = readInputs(paths, options, progressReporter(this, post));
    if (!inputs) return postFailure(post, inputs.error());
    if (inputs->run) {
      post([this, run = inputs->run] {
        busy_ = false;
        emit loaded(run);
      });
      return;
    }
    // The job's figures show while the rank it opens with is read again in full.
    post([this, job = inputs->job] { emit jobLoaded(job); });
    readRank(post, *inputs->job, firstRankToOpen(*inputs->job), options);
  });
}

void RunLoader::loadRank(JobPtr job, std::int32_t rank) {
  start([this, job = std::move(job), rank, options = options_](const Post& post) {
    readRank(post, *job, rank, options);
  });
}

void RunLoader::readRank(const Post& post, const analyzer::JobAnalysis& job, std::int32_t rank,
                         const analyzer::AnalysisOptions& options) {
  post([this] { emit progress(-1.0); });  // analyzeRank cannot tell how far it is
  auto run = loadRankNow(job, rank, options);
  if (!run) return postFailure(post, run.error());
  post([this, rank, run = *run] {
    busy_ = false;
    emit rankLoaded(rank, run);
  });
}

void RunLoader::postFailure(const Post& post, const trace::Error& error) {
  post([this, message = QString::fromStdString(error.message)] {
    busy_ = false;
    emit failed(message);
  });
}

void RunLoader::cancel() {
  generation_->fetch_add(1);
  busy_ = false;
}

}  // namespace ampscope::gui
