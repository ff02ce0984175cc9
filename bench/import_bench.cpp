// Import benchmark: how fast importTrace reads one trace file and how much memory it takes.
//
//   ampscope_import_bench FILE [--repeat N] [--no-correlate] [--phases] [--analyze] [--threads N] [--stages]
//                        [--by-process] [--window START:END|step:N-M]
//
// Prints the file's size, its uncompressed size, the import time and rate (MB/s of uncompressed
// input, events/s), the correlator's time, and memory: the process's peak RSS (VmHWM, with
// getrusage ru_maxrss beside it), the Trace's own memoryBytes(), and peak RSS per million
// events. Peak RSS is a per-process high-water mark, so the honest memory figure comes from a
// process that imports once (the default); with --repeat the time of every run is printed and
// memory is that of the worst one. --phases also times splitting the document into events
// alone (ChromeTraceStream with a handler that does nothing), to tell scanning from parsing.
// --analyze runs what `ampscope analyze` runs after the import (analyzer::analyzeTrace: correlate,
// summarize, recommend) in place of correlate alone, and prints its time and the peak RSS of the
// whole run. --threads N is the import's and the analysis' thread count (0, the default: every
// hardware thread). --stages prints, for each run, when each stage of the import and the analysis
// ended (base/stage_callback.h), in seconds from the import's start, and on which thread: the two
// chains of the summary run side by side. --by-process reads the file as `ampscope analyze` does
// when nothing keeps the whole trace (import::importTraceByProcess: an Nsight Systems export of
// several processes read one process at a time) and, with --analyze, analyzes each process's trace
// before the next is read, as a job's ranks are; the figures are the parts' added up. --window
// reads only that part of the recording (analyzer/core/read_window.h), as `analyze --window` does.
// MB is 10^6 bytes throughout.

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "analyzer/correlate/correlator.h"
#include "analyzer/import/byte_source.h"
#include "analyzer/import/kineto/chrome_trace_stream.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/run_analysis.h"
#include "base/malloc_arenas.h"
#include "base/stage_callback.h"
#include "bench/process_memory.h"
#include "bench/stopwatch.h"
#include "trace/trace_model.h"

namespace {

using ampscope::bench::currentRssBytes;
using ampscope::bench::megabytes;
using ampscope::bench::peakRssBytes;
using ampscope::bench::rusagePeakRssBytes;
using ampscope::bench::Stopwatch;

constexpr double kTargetMegabytesPerSecond = 300.0;
constexpr double kTargetPeakMegabytesPerMillionEvents = 200.0;

struct Options {
  std::string path;
  int repeat = 1;
  bool correlate = true;
  bool phases = false;
  bool analyze = false;
  unsigned threads = 0;
  bool stages = false;
  bool by_process = false;
  std::optional<ampscope::analyzer::ReadWindow> window;
};

// When each stage ended, in seconds from the run's start, and the thread that ended it (numbered
// in order of first appearance). Called from several threads at once.
class StageTimeline {
 public:
  ampscope::StageCallback callback() {
    return [this](std::string_view stage) {
      const double at = watch_.seconds();
      const std::lock_guard lock(mutex_);
      const auto thread = std::find(threads_.begin(), threads_.end(), std::this_thread::get_id());
      const auto number = static_cast<std::size_t>(thread - threads_.begin());
      if (thread == threads_.end()) threads_.push_back(std::this_thread::get_id());
      ended_.push_back({std::string(stage), at, number, currentRssBytes(), peakRssBytes()});
    };
  }
  void print() const {
    for (const Ended& e : ended_) {
      fmt::print("  stage {:<24} ended at {:.3f} s (thread {}), RSS {:.0f} MB, peak so far {:.0f} MB\n", e.stage, e.at,
                 e.thread, megabytes(e.rss_bytes), megabytes(e.peak_rss_bytes));
    }
  }

 private:
  struct Ended {
    std::string stage;
    double at;
    std::size_t thread;
    std::uint64_t rss_bytes;  // when it ended: what the stage left held
    std::uint64_t peak_rss_bytes;
  };
  const Stopwatch watch_;
  std::mutex mutex_;
  std::vector<std::thread::id> threads_;
  std::vector<Ended> ended_;
};

struct ReadBaseline {
  std::uint64_t uncompressed_bytes = 0;
  bool gzip = false;
  double seconds = 0;
};

struct RunFigures {
  double import_seconds = 0;
  double correlate_seconds = 0;
  double analyze_seconds = 0;  // --analyze: correlate + summarize + recommend
  std::uint64_t events_read = 0;      // elements of traceEvents
  std::uint64_t events_imported = 0;  // rows of the trace model (kernels, launches, ranges, ...)
  std::uint64_t kernels = 0;
  std::uint64_t launches = 0;
  std::uint64_t ranges = 0;
  std::uint64_t memory_ops = 0;
  std::uint64_t kernels_linked = 0;
  std::uint64_t trace_memory_bytes = 0;
  std::uint64_t rss_after_import_bytes = 0;
  std::uint64_t peak_after_import_bytes = 0;
  std::uint64_t rusage_peak_after_import_bytes = 0;
  std::uint64_t peak_after_analyze_bytes = 0;
  std::uint64_t recommendations = 0;
};

void usage() {
  std::fputs("usage: ampscope_import_bench FILE [--repeat N] [--no-correlate] [--phases] [--analyze]\n"
             "                             [--threads N] [--stages] [--by-process] [--window START:END|step:N-M]\n"
             "Times importTrace (and correlate, or with --analyze the whole analysis) on FILE;\n"
             "prints MB/s, events/s and peak RSS.\n",
             stderr);
}

bool parseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      options.repeat = std::atoi(argv[++i]);
      if (options.repeat < 1) return false;
    } else if (arg == "--no-correlate") {
      options.correlate = false;
    } else if (arg == "--phases") {
      options.phases = true;
    } else if (arg == "--analyze") {
      options.analyze = true;
    } else if (arg == "--stages") {
      options.stages = true;
    } else if (arg == "--by-process") {
      options.by_process = true;
    } else if (arg == "--window" && i + 1 < argc) {
      auto window = ampscope::analyzer::parseReadWindow(argv[++i]);
      if (!window) {
        std::fprintf(stderr, "%s\n", window.error().message.c_str());
        return false;
      }
      options.window = *window;
    } else if (arg == "--threads" && i + 1 < argc) {
      const int threads = std::atoi(argv[++i]);
      if (threads < 0) return false;
      options.threads = static_cast<unsigned>(threads);
    } else if (arg == "-h" || arg == "--help") {
      return false;
    } else if (!arg.empty() && arg[0] != '-' && options.path.empty()) {
      options.path = std::string(arg);
    } else {
      return false;
    }
  }
  return !options.path.empty();
}

// Reads the whole file once, inflating gzip (zlib reads plain files as they are): gives the
// uncompressed size, the rate of reading alone, and leaves the file in the page cache so that
// the import is timed on a warm cache, like every run after the first.
bool readBaseline(const std::string& path, ReadBaseline& out) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return false;
  // Static and small, with zlib's default buffers: large malloc blocks that are freed raise
  // glibc's mmap threshold, which would change how the import's own buffers count towards RSS.
  static char buffer[1 << 18];
  const Stopwatch watch;
  for (;;) {
    const int got = gzread(file, buffer, static_cast<unsigned>(sizeof buffer));
    if (got < 0) {
      int code = 0;
      std::fprintf(stderr, "%s: read error: %s\n", path.c_str(), gzerror(file, &code));
      gzclose(file);
      return false;
    }
    if (got == 0) break;
    out.uncompressed_bytes += static_cast<std::uint64_t>(got);
  }
  out.seconds = watch.seconds();
  out.gzip = gzdirect(file) == 0;
  gzclose(file);
  return true;
}

// The first stage of the Kineto importer alone: reading the bytes and splitting the traceEvents
// array into elements, with nothing parsed. Returns the seconds taken, or a negative number.
double timeSplitOnly(const std::string& path, std::uint64_t& elements) {
  namespace import = ampscope::analyzer::import;
  const Stopwatch watch;
  auto source = import::ByteSource::open(path);
  if (!source.ok()) return -1;
  import::ChromeTraceStream stream(**source);
  elements = 0;
  const ampscope::trace::Status status = stream.run(
      [&](const import::TraceEventText&) {
        ++elements;
        return ampscope::trace::Status();
      },
      {});
  if (!status.ok()) {
    std::fprintf(stderr, "split failed: %s\n", status.error().message.c_str());
    return -1;
  }
  return watch.seconds();
}

// Adds what one imported trace holds to the figures.
void countTrace(const ampscope::trace::Trace& trace, RunFigures& out) {
  out.events_read += trace.import_stats.events_read;
  out.events_imported += trace.eventCount();
  out.kernels += trace.kernels.size();
  out.launches += trace.launches.size();
  out.ranges += trace.ranges.size();
  out.memory_ops += trace.memory_ops.size();
  out.trace_memory_bytes += trace.memoryBytes();
}

// With --by-process: the file read one process at a time as `ampscope analyze` reads it, each
// process's trace analyzed (or correlated) before the next is read. The import and analysis
// times are each part's added up; memory figures are the whole run's.
bool runByProcess(const Options& options, const ampscope::StageCallback& stage_done, RunFigures& out) {
  namespace import = ampscope::analyzer::import;
  double analysis_seconds = 0;
  const Stopwatch watch;
  const ampscope::trace::Status read = import::importTraceByProcess(
      options.path, {.progress = {}, .threads = options.threads, .window = options.window}, stage_done, std::nullopt,
      [&](ampscope::trace::ProcessTrace&& part) -> ampscope::trace::Status {
        countTrace(part.trace, out);
        out.peak_after_import_bytes = std::max(out.peak_after_import_bytes, peakRssBytes());
        const Stopwatch analysis_watch;
        if (options.analyze) {
          const ampscope::analyzer::RunAnalysis run = ampscope::analyzer::analyzeTrace(
              std::move(part.trace), options.path, {.gpu = {}, .threads = options.threads, .window = {}}, stage_done);
          out.kernels_linked += run.summary.correlation.kernels_linked_to_launch;
          out.recommendations += run.recommendations.size();
        } else if (options.correlate) {
          out.kernels_linked += ampscope::analyzer::correlate(part.trace, options.threads).kernels_linked_to_launch;
        }
        analysis_seconds += analysis_watch.seconds();
        return {};
      });
  if (!read.ok()) {
    std::fprintf(stderr, "import failed: %s\n", read.error().message.c_str());
    return false;
  }
  out.import_seconds = watch.seconds() - analysis_seconds;
  (options.analyze ? out.analyze_seconds : out.correlate_seconds) = analysis_seconds;
  out.peak_after_analyze_bytes = peakRssBytes();
  out.rss_after_import_bytes = currentRssBytes();
  out.rusage_peak_after_import_bytes = rusagePeakRssBytes();
  return true;
}

bool runOnce(const Options& options, RunFigures& out) {
  namespace import = ampscope::analyzer::import;
  StageTimeline timeline;
  const ampscope::StageCallback stage_done = options.stages ? timeline.callback() : ampscope::StageCallback();
  if (options.by_process) {
    const bool done = runByProcess(options, stage_done, out);
    if (done && options.stages) timeline.print();
    return done;
  }
  const Stopwatch import_watch;
  auto result = import::importTrace(
      options.path, {.progress = {}, .threads = options.threads, .window = options.window}, stage_done);
  out.import_seconds = import_watch.seconds();
  if (!result.ok()) {
    std::fprintf(stderr, "import failed: %s\n", result.error().message.c_str());
    return false;
  }
  ampscope::trace::Trace& trace = *result;
  out.rss_after_import_bytes = currentRssBytes();
  out.peak_after_import_bytes = peakRssBytes();
  out.rusage_peak_after_import_bytes = rusagePeakRssBytes();
  countTrace(trace, out);
  if (options.analyze) {
    const Stopwatch analyze_watch;
    const ampscope::analyzer::RunAnalysis run = ampscope::analyzer::analyzeTrace(
        std::move(trace), options.path, {.gpu = {}, .threads = options.threads, .window = {}}, stage_done);
    out.analyze_seconds = analyze_watch.seconds();
    out.peak_after_analyze_bytes = peakRssBytes();
    out.kernels_linked = run.summary.correlation.kernels_linked_to_launch;
    out.recommendations = run.recommendations.size();
  } else if (options.correlate) {
    const Stopwatch correlate_watch;
    const auto counts = ampscope::analyzer::correlate(trace, options.threads);
    out.correlate_seconds = correlate_watch.seconds();
    out.kernels_linked = counts.kernels_linked_to_launch;
  }
  if (options.stages) timeline.print();
  return true;
}

double perSecond(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

double perMillion(std::uint64_t bytes, std::uint64_t events) {
  return events > 0 ? megabytes(bytes) / (static_cast<double>(events) / 1e6) : 0.0;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

}  // namespace

int main(int argc, char** argv) {
  ampscope::useOneMallocArena();  // as the ampscope command does: the figures are its figures
  Options options;
  if (!parseOptions(argc, argv, options)) {
    usage();
    return 2;
  }
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(options.path, ec);
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", options.path.c_str(), ec.message().c_str());
    return 1;
  }
  const std::uint64_t rss_at_start = peakRssBytes();
  ReadBaseline baseline;
  if (!readBaseline(options.path, baseline)) {
    std::fprintf(stderr, "%s: cannot read\n", options.path.c_str());
    return 1;
  }
  const double input_mb = megabytes(baseline.uncompressed_bytes);

  fmt::print("file:                     {}\n", options.path);
  fmt::print("file bytes:               {} ({:.1f} MB, {})\n", file_bytes, megabytes(file_bytes),
             baseline.gzip ? "gzip" : "plain JSON");
  fmt::print("uncompressed bytes:       {} ({:.1f} MB)\n", baseline.uncompressed_bytes, input_mb);
  fmt::print("read-only baseline:       {:.3f} s, {:.0f} MB/s uncompressed ({})\n",
             baseline.seconds, perSecond(input_mb, baseline.seconds),
             baseline.gzip ? "zlib inflate" : "read from the page cache");

  std::vector<RunFigures> runs;
  for (int run = 0; run < options.repeat; ++run) {
    RunFigures figures;
    if (!runOnce(options, figures)) return 1;
    if (options.analyze) {
      fmt::print("run {}:                    import {:.3f} s ({:.1f} MB/s), analyze {:.3f} s\n", run + 1,
                 figures.import_seconds, perSecond(input_mb, figures.import_seconds), figures.analyze_seconds);
    } else {
      fmt::print("run {}:                    import {:.3f} s ({:.1f} MB/s), correlate {:.3f} s\n",
                 run + 1, figures.import_seconds, perSecond(input_mb, figures.import_seconds),
                 figures.correlate_seconds);
    }
    std::fflush(stdout);
    runs.push_back(figures);
  }

  const std::uint64_t peak = peakRssBytes();  // imports and correlation, before the split phase
  // After the imports, so that its buffers (which malloc may keep) do not raise their peak RSS.
  if (options.phases) {
    std::uint64_t elements = 0;
    const double seconds = timeSplitOnly(options.path, elements);
    if (seconds < 0) return 1;
    fmt::print("split-only phase:         {:.3f} s, {:.0f} MB/s ({} traceEvents elements found, "
               "none parsed)\n",
               seconds, perSecond(input_mb, seconds), elements);
  }

  // The best run's time (least disturbed by the machine); memory is the same every run.
  const RunFigures* best = &runs.front();
  for (const RunFigures& run : runs) {
    if (run.import_seconds < best->import_seconds) best = &run;
  }
  const RunFigures& r = *best;
  const double mb_per_s = perSecond(input_mb, r.import_seconds);
  const double peak_per_million_read = perMillion(r.peak_after_import_bytes, r.events_read);
  const double peak_per_million_model = perMillion(r.peak_after_import_bytes, r.events_imported);

  fmt::print("import seconds:           {:.3f}{}\n", r.import_seconds,
             runs.size() > 1 ? fmt::format(" (best of {})", runs.size()) : std::string());
  fmt::print("import MB/s:              {:.1f} (uncompressed JSON bytes / import seconds)\n",
             mb_per_s);
  fmt::print("events in file:           {} (traceEvents elements)\n", r.events_read);
  fmt::print("events imported:          {} (kernels {}, launches {}, ranges {}, memory ops {})\n",
             r.events_imported, r.kernels, r.launches, r.ranges, r.memory_ops);
  fmt::print("events/s:                 {:.0f} file events/s, {:.0f} imported events/s\n",
             perSecond(static_cast<double>(r.events_read), r.import_seconds),
             perSecond(static_cast<double>(r.events_imported), r.import_seconds));
  if (options.analyze) {
    fmt::print("analyze seconds:          {:.3f} (correlate, summarize, recommend; {} of {} kernels "
               "linked to a launch, {} recommendations)\n",
               r.analyze_seconds, r.kernels_linked, r.kernels, r.recommendations);
    fmt::print("peak RSS after analyze:   {:.1f} MB, {:.1f} bytes per file event\n",
               megabytes(r.peak_after_analyze_bytes),
               r.events_read > 0 ? static_cast<double>(r.peak_after_analyze_bytes) / static_cast<double>(r.events_read)
                                 : 0.0);
  } else if (options.correlate) {
    fmt::print("correlate seconds:        {:.3f} ({:.0f} imported events/s; {} of {} kernels "
               "linked to a launch)\n",
               r.correlate_seconds,
               perSecond(static_cast<double>(r.events_imported), r.correlate_seconds),
               r.kernels_linked, r.kernels);
  }
  fmt::print("RSS at start:             {:.1f} MB\n", megabytes(rss_at_start));
  fmt::print("RSS after import:         {:.1f} MB (the Trace held)\n",
             megabytes(r.rss_after_import_bytes));
  fmt::print("Trace::memoryBytes():     {:.1f} MB\n", megabytes(r.trace_memory_bytes));
  fmt::print("peak RSS after import:    {:.1f} MB (VmHWM; getrusage ru_maxrss {:.1f} MB)\n",
             megabytes(r.peak_after_import_bytes), megabytes(r.rusage_peak_after_import_bytes));
  fmt::print("peak RSS at the end:      {:.1f} MB{}\n", megabytes(peak),
             options.analyze     ? " (import + analysis)"
             : options.correlate ? " (import + correlate)"
                                 : "");
  fmt::print("peak RSS per M events:    {:.1f} MB per million file events, {:.1f} MB per "
             "million imported events\n",
             peak_per_million_read, peak_per_million_model);
  fmt::print("target import >= {:.0f} MB/s: {} ({:.1f} MB/s)\n", kTargetMegabytesPerSecond,
             verdict(mb_per_s >= kTargetMegabytesPerSecond), mb_per_s);
  fmt::print("target peak RSS <= {:.0f} MB per million events: {} per file event ({:.1f}), {} per "
             "imported event ({:.1f})\n",
             kTargetPeakMegabytesPerMillionEvents,
             verdict(peak_per_million_read <= kTargetPeakMegabytesPerMillionEvents),
             peak_per_million_read,
             verdict(peak_per_million_model <= kTargetPeakMegabytesPerMillionEvents),
             peak_per_million_model);
  return 0;
}
