#include "cli/job_input.h"

#include <ostream>

#include <fmt/format.h>

#include "analyzer/import/trace_importer.h"
#include "analyzer/job_files.h"
#include "cli/exit_codes.h"
#include "cli/progress_bar.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {

namespace {

std::optional<CliAnalysis> fail(std::ostream& err, int& exit_code, int code, const std::string& message) {
  err << "ampscope: " << message << "\n";
  exit_code = code;
  return std::nullopt;
}

// One file: a run, or a job where the file holds several processes' GPU work.
std::optional<CliAnalysis> analyzeOneFile(const std::string& path, const InputOptions& options, std::ostream& err,
                                          int& exit_code) {
  ProgressBar progress("reading " + path);
  auto imported = analyzer::import::importTrace(
      path, [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); });
  progress.finish();
  if (!imported) return fail(err, exit_code, kExitBadInput, imported.error().message);
  if (!options.save_profile.empty()) {
    if (trace::Status saved = trace::db::writeProfile(options.save_profile, *imported); !saved) {
      return fail(err, exit_code, kExitFailure, saved.error().message);
    }
  }
  CliAnalysis out;
  if (analyzer::holdsSeveralRanks(*imported)) {
    auto job = analyzer::analyzeJob(analyzer::rankResultsOfTrace(std::move(imported).value(), path, options.analysis));
    if (!job) return fail(err, exit_code, kExitBadInput, job.error().message);
    out.job = std::move(job).value();
    return out;
  }
  const std::int64_t pid = imported->kernels.empty() ? trace::kUnknownPid : imported->kernels.front().pid;
  out.run = analyzer::analyzeTrace(std::move(imported).value(), path, options.analysis);
  out.rank_result = analyzer::rankResultOf(out.run->summary, path, path);
  out.rank_result.pid = pid;
  return out;
}

}  // namespace

std::optional<CliAnalysis> analyzeInputsForCli(const std::vector<std::string>& paths, const InputOptions& options,
                                               std::ostream& err, int& exit_code) {
  exit_code = kExitOk;
  auto files = analyzer::listTraceFiles(paths);
  if (!files) return fail(err, exit_code, kExitBadInput, files.error().message);
  if (files->size() > 1 && !options.save_profile.empty()) {
    return fail(err, exit_code, kExitBadInput, "--save-profile keeps one trace; it was given several");
  }
  std::optional<CliAnalysis> out;
  if (files->size() == 1) {
    out = analyzeOneFile(files->front(), options, err, exit_code);
    if (!out) return out;
  } else {
    ProgressBar progress(fmt::format("reading {} traces", files->size()));
    analyzer::JobReadOptions read{.analysis = options.analysis, .threads = options.threads,
                                  .progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); }};
    auto job = analyzer::analyzeJobFiles(*files, read);
    progress.finish();
    if (!job) return fail(err, exit_code, kExitBadInput, job.error().message);
    out = CliAnalysis{};
    out->job = std::move(job).value();
  }
  if (!options.rank) return out;
  // --rank N: that rank's complete analysis.
  if (out->run) {
    const std::int32_t rank = out->rank_result.rank >= 0 ? out->rank_result.rank : 0;
    if (*options.rank != rank) {
      return fail(err, exit_code, kExitBadInput,
                  fmt::format("--rank {}: {} is one rank, rank {}", *options.rank, files->front(), rank));
    }
    return out;
  }
  for (const analyzer::RankResult& rank : out->job->rank_results) {
    if (rank.rank != *options.rank) continue;
    auto run = analyzer::analyzeRank(rank, options.analysis);
    if (!run) return fail(err, exit_code, kExitBadInput, run.error().message);
    CliAnalysis one;
    one.rank_result = rank;
    one.run = std::move(run).value();
    return one;
  }
  std::string ranks;
  for (const analyzer::RankResult& rank : out->job->rank_results) ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ", rank.rank);
  return fail(err, exit_code, kExitBadInput, fmt::format("--rank {}: the job has ranks {}", *options.rank, ranks));
}

}  // namespace ampscope::cli
