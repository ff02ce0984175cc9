#include "gui/run_loader.h"

#include <thread>

#include <QMetaObject>

#include "analyzer/device_table.h"

namespace ampscope::gui {

RunLoader::RunLoader(QObject* parent) : QObject(parent) {}

RunLoader::~RunLoader() {
  // A load in flight finishes before the loader goes (its result is dropped): the thread must
  // not outlive the objects it reports to.
  generation_->fetch_add(1);
  for (std::thread& thread : threads_) thread.join();
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

trace::Result<RunPtr> RunLoader::loadNow(const QString& path, const analyzer::AnalysisOptions& options) {
  auto run = analyzer::analyzeFile(path.toStdString(), {}, options);
  if (!run) return run.error();
  return RunPtr(std::make_shared<analyzer::RunAnalysis>(std::move(run).value()));
}

void RunLoader::load(const QString& path) {
  const int mine = generation_->fetch_add(1) + 1;
  busy_ = true;
  RunLoader* self = this;  // alive until this thread is joined in the destructor
  auto generation = generation_;
  threads_.emplace_back([self, generation, mine, file = path.toStdString(), options = options_] {
    const auto current = [&] { return generation->load() == mine; };
    double reported = -1.0;  // progress goes to the GUI thread in steps of 1 %, not per callback
    auto run = analyzer::analyzeFile(file, [&](std::uint64_t done, std::uint64_t total) {
      if (!current()) return;
      const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : -1.0;
      if (fraction >= 0 && reported >= 0 && fraction - reported < 0.01) return;
      reported = fraction;
      QMetaObject::invokeMethod(
          self, [self, generation, mine, fraction] {
            if (generation->load() == mine) emit self->progress(fraction);
          },
          Qt::QueuedConnection);
    }, options);
    RunPtr loaded;
    QString error;
    if (run) {
      loaded = std::make_shared<analyzer::RunAnalysis>(std::move(run).value());
    } else {
      error = QString::fromStdString(run.error().message);
    }
    QMetaObject::invokeMethod(
        self,
        [self, generation, mine, loaded, error] {
          if (generation->load() != mine) return;  // abandoned
          self->busy_ = false;
          if (loaded) {
            emit self->loaded(loaded);
          } else {
            emit self->failed(error);
          }
        },
        Qt::QueuedConnection);
  });
}

void RunLoader::cancel() {
  generation_->fetch_add(1);
  busy_ = false;
}

}  // namespace ampscope::gui
