#include "cli/export_command.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "analyzer/job/rank_result.h"
#include "analyzer/job_files.h"
#include "cli/exit_codes.h"
#include "cli/job_input.h"
#include "reports/perfetto_export.h"

namespace ampscope::cli {

namespace {

// The output stream's buffer: large writes, not one per event.
constexpr std::size_t kWriteBufferBytes = 1 << 20;

// "rank 3 (worker3.json)".
std::string processName(std::int32_t rank, const std::string& file) {
  return fmt::format("rank {} ({})", rank, std::filesystem::path(file).filename().string());
}

// OUT.tmp while writing; renamed to OUT once complete, removed on any failure.
class TemporaryOutput {
 public:
  explicit TemporaryOutput(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {
    stream_.rdbuf()->pubsetbuf(buffer_.get(), kWriteBufferBytes);
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) error_ = std::strerror(errno);
  }
  ~TemporaryOutput() {
    if (committed_) return;
    stream_.close();
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
  bool opened() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::ostream& stream() { return stream_; }
  // Flushes, closes and renames; false (error() says why) when any write failed.
  bool commit() {
    stream_.flush();
    if (!stream_) {
      error_ = fmt::format("cannot write: {}", std::strerror(errno));
      return false;
    }
    stream_.close();
    std::error_code ec;
    std::filesystem::rename(temporary_, path_, ec);
    if (ec) {
      error_ = fmt::format("cannot write: {}", ec.message());
      return false;
    }
    committed_ = true;
    return true;
  }

 private:
  std::string path_;
  std::string temporary_;
  std::unique_ptr<char[]> buffer_ = std::make_unique<char[]>(kWriteBufferBytes);
  std::ofstream stream_;
  std::string error_;
  bool committed_ = false;
};

int fail(std::ostream& err, int code, const std::string& message) {
  err << "ampscope: " << message << "\n";
  return code;
}

// A job, one rank at a time: the analysis of each rank is read again from its file (the job's
// analysis keeps compact results only), once to find the earliest event on the job's clock (the
// document's origin: Perfetto drops events before 0) and once to write it. Memory holds one rank.
int exportJob(const analyzer::JobAnalysis& job, const analyzer::AnalysisOptions& analysis, std::ostream& stream,
              std::ostream& err, reports::PerfettoCounts& counts) {
  std::vector<const analyzer::RankResult*> ranks;
  for (const analyzer::RankResult& r : job.rank_results) ranks.push_back(&r);
  std::sort(ranks.begin(), ranks.end(), [](const auto* a, const auto* b) { return a->rank < b->rank; });
  const auto offsetOf = [&](std::int32_t rank) -> std::int64_t {
    for (const analyzer::RankRow& row : job.ranks) {
      if (row.rank == rank) return row.clock_offset_ns;
    }
    return 0;
  };
  std::optional<std::int64_t> origin;
  for (const analyzer::RankResult* rank : ranks) {
    auto run = analyzer::analyzeRank(*rank, analysis);
    if (!run) return fail(err, kExitBadInput, run.error().message);
    if (const auto first = reports::earliestExportedNs(*run)) {
      const std::int64_t on_job_clock = *first + analyzer::epochShiftNs(run->summary) + offsetOf(rank->rank);
      origin = origin ? std::min(*origin, on_job_clock) : on_job_clock;
    }
  }
  reports::PerfettoExporter exporter(stream, origin.value_or(0));
  for (const analyzer::RankResult* rank : ranks) {
    auto run = analyzer::analyzeRank(*rank, analysis);
    if (!run) return fail(err, kExitBadInput, run.error().message);
    exporter.addRank(*run, {.pid = rank->rank,
                            .name = processName(rank->rank, rank->file),
                            .clock_shift_ns = analyzer::epochShiftNs(run->summary) + offsetOf(rank->rank)});
  }
  exporter.finish();
  counts = exporter.counts();
  return kExitOk;
}

}  // namespace

int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  // The output is opened first: an unwritable path fails at once, not after the analysis.
  TemporaryOutput output(options.perfetto);
  if (!output.opened()) return fail(err, kExitFailure, fmt::format("{}: cannot write: {}", options.perfetto, output.error()));
  int exit_code = kExitOk;
  const InputOptions input{.save_profile = {}, .analysis = {options.gpu, options.threads, options.window}, .rank = options.rank};
  const auto analysis = analyzeInputsForCli(options.trace_paths, input, err, exit_code);
  if (!analysis) return exit_code;
  reports::PerfettoCounts counts;
  if (analysis->job) {
    if (const int code = exportJob(*analysis->job, input.analysis, output.stream(), err, counts); code != kExitOk) return code;
  } else {
    const analyzer::RunAnalysis& run = *analysis->run;
    // One run is one process: its rank where the trace (or --rank) says one, else 0.
    const std::int32_t rank = analysis->rank_result.rank >= 0 ? analysis->rank_result.rank : 0;
    reports::PerfettoExporter exporter(output.stream(), reports::earliestExportedNs(run).value_or(0));
    exporter.addRank(run, {.pid = rank, .name = processName(rank, run.path), .clock_shift_ns = 0});
    exporter.finish();
    counts = exporter.counts();
  }
  if (!output.commit()) return fail(err, kExitFailure, fmt::format("{}: {}", options.perfetto, output.error()));
  out << fmt::format("ampscope: wrote {} ({} process{}, {} kernels, {} launch flows, {} counter samples); open it in "
                     "ui.perfetto.dev or chrome://tracing\n",
                     options.perfetto, counts.processes, counts.processes == 1 ? "" : "es", counts.kernels, counts.flows,
                     counts.counter_samples);
  return kExitOk;
}

}  // namespace ampscope::cli
