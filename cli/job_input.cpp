#include "cli/job_input.h"

#include <filesystem>
#include <functional>
#include <ostream>

#include <fmt/format.h>

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

}  // namespace

std::optional<CliAnalysis> analyzeInputsForCli(const std::vector<std::string>& paths, const InputOptions& options,
                                               std::ostream& err, int& exit_code) {
  exit_code = kExitOk;
  std::error_code no_throw;
  if (!options.save_profile.empty() && (paths.size() != 1 || std::filesystem::is_directory(paths.front(), no_throw))) {
    return fail(err, exit_code, kExitBadInput, "--save-profile keeps one trace file; it was given several or a folder");
  }
  ProgressBar progress(paths.size() == 1 ? "reading " + paths.front() : fmt::format("reading {} traces", paths.size()));
  const analyzer::JobReadOptions read{.analysis = options.analysis,
                                      .progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); }};
  bool profile_failed = false;
  // Only a profile to keep needs the whole trace: without one, a file of several processes is read
  // straight into each process's trace (analyzer::analyzeRunOrJob).
  std::function<trace::Status(const trace::Trace&)> keep_profile;
  if (!options.save_profile.empty()) {
    keep_profile = [&](const trace::Trace& trace) -> trace::Status {
      trace::Status saved = trace::db::writeProfile(options.save_profile, trace);
      profile_failed = !saved;
      return saved;
    };
  }
  auto analyzed = analyzer::analyzeRunOrJob(
      paths, read, [&](std::uint64_t done, std::uint64_t total) { progress.update(done, total); }, keep_profile);
  progress.finish();
  if (!analyzed) {
    return fail(err, exit_code, profile_failed ? kExitFailure : kExitBadInput, analyzed.error().message);
  }
  CliAnalysis out;
  if (analyzed->run) {
    out.run = std::move(analyzed->run);
    const std::string& path = out.run->path;
    out.rank_result = analyzer::rankResultOf(out.run->summary, out.run->recommendations, path, path);
    out.rank_result.pid = out.run->trace.kernels.empty() ? trace::kUnknownPid : out.run->trace.kernels.front().pid;
    if (!options.rank) return out;
    // --rank N of one run: it is that rank, or the only one (rank 0) where it does not say.
    const std::int32_t rank = out.rank_result.rank >= 0 ? out.rank_result.rank : 0;
    if (*options.rank != rank) {
      return fail(err, exit_code, kExitBadInput, fmt::format("--rank {}: {} is one rank, rank {}", *options.rank, path, rank));
    }
    return out;
  }
  out.job = std::move(analyzed->job);
  if (!options.rank) return out;
  return rankOfJobForCli(*out.job, *options.rank, options.analysis, err, exit_code);
}

std::optional<CliAnalysis> rankOfJobForCli(const analyzer::JobAnalysis& job, std::int32_t rank,
                                           const analyzer::AnalysisOptions& options, std::ostream& err,
                                           int& exit_code) {
  exit_code = kExitOk;
  auto run = analyzer::analyzeRankOfJob(job, rank, options);
  if (!run) return fail(err, exit_code, kExitBadInput, run.error().message);
  CliAnalysis one;
  for (const analyzer::RankResult& result : job.rank_results) {
    if (result.rank == rank) one.rank_result = result;
  }
  one.run = std::move(run).value();
  return one;
}

}  // namespace ampscope::cli
