#include "analyzer/job_files.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "analyzer/import/trace_importer.h"
#include "analyzer/job/process_split.h"
#include "base/task_queue.h"
#include "base/thread_count.h"

namespace ampscope::analyzer {

namespace {

// "rank2" < "rank10": runs of digits compare by value.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ei = i;
      std::size_t ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string_view da(a.data() + i, ei - i);
      std::string_view db(b.data() + j, ej - j);
      while (da.size() > 1 && da.front() == '0') da.remove_prefix(1);
      while (db.size() > 1 && db.front() == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

trace::Result<std::vector<std::string>> listTraceFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return trace::Error{fmt::format("{}: no such file or folder", path)};
    if (!std::filesystem::is_directory(status)) {
      out.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec) && import::looksLikeTraceFile(entry.path().string())) {
        found.push_back(entry.path().string());
      }
    }
    if (ec) return trace::Error{fmt::format("{}: cannot list the folder: {}", path, ec.message())};
    if (found.empty()) {
      return trace::Error{fmt::format("{}: the folder holds no trace file (PyTorch profiler JSON, Nsight Systems or "
                                      "nvprof SQLite, ampscope profile)", path)};
    }
    std::sort(found.begin(), found.end(), naturalLess);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

namespace {

// One process's rank of a file that holds several.
RankResult rankResultOfPart(ProcessTrace&& part, const std::string& path, const AnalysisOptions& options) {
  const RunAnalysis run = analyzeTrace(std::move(part.trace), path, options);
  RankResult rank = rankResultOf(run.summary, run.recommendations, path, fmt::format("{} (process {})", path, part.pid));
  rank.pid = part.pid;
  // A rank recorded for the whole file cannot be every process's: the processes are numbered.
  rank.rank = -1;
  rank.origin = RankOrigin::kProcess;
  return rank;
}

}  // namespace

std::vector<RankResult> rankResultsOfTrace(trace::Trace trace, const std::string& path, const AnalysisOptions& options) {
  std::vector<ProcessTrace> parts = splitByProcess(trace);
  std::vector<RankResult> out;
  if (parts.empty()) {
    const std::int64_t pid = trace.kernels.empty() ? trace::kUnknownPid : trace.kernels.front().pid;
    const RunAnalysis run = analyzeTrace(std::move(trace), path, options);
    out.push_back(rankResultOf(run.summary, run.recommendations, path, path));
    out.back().pid = pid;
    return out;
  }
  trace = trace::Trace{};  // the parts hold what the ranks need
  for (ProcessTrace& part : parts) out.push_back(rankResultOfPart(std::move(part), path, options));
  return out;
}

bool holdsSeveralRanks(const trace::Trace& trace) {
  std::int64_t first = trace::kUnknownPid;
  for (const trace::Kernel& k : trace.kernels) {
    if (k.pid == trace::kUnknownPid) continue;
    if (first == trace::kUnknownPid) first = k.pid;
    else if (k.pid != first) return true;
  }
  return false;
}

trace::Result<std::vector<RankResult>> rankResultsOfFile(const std::string& path, const AnalysisOptions& options) {
  // One process at a time where the file holds several (each process's trace analyzed and freed
  // before the next is read); a whole trace is cut as rankResultsOfTrace cuts it.
  std::vector<RankResult> out;
  const import::ImportOptions import_options{.progress = {}, .threads = options.threads, .window = options.window};
  const trace::Status read = import::importTraceByProcess(
      path, import_options, {}, std::nullopt, [&](ProcessTrace&& part) -> trace::Status {
        if (part.one_of_several) {
          out.push_back(rankResultOfPart(std::move(part), path, options));
        } else {
          for (RankResult& rank : rankResultsOfTrace(std::move(part.trace), path, options)) out.push_back(std::move(rank));
        }
        return {};
      });
  if (!read) return read.error();
  return out;
}

trace::Result<JobAnalysis> analyzeJobFiles(const std::vector<std::string>& files, const JobReadOptions& options) {
  if (files.empty()) return trace::Error{"no trace file given"};
  std::vector<std::optional<trace::Result<std::vector<RankResult>>>> results(files.size());
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::size_t done = 0;
  const unsigned all_threads = threadsToUse(options.analysis.threads);
  const std::size_t threads = std::min<std::size_t>(files.size(), all_threads);
  // Files read at once share the threads: each file's import gets what is left over.
  AnalysisOptions per_file = options.analysis;
  per_file.threads = std::max(1u, all_threads / static_cast<unsigned>(threads));
  runTasks(files.size(), threads, [&](std::size_t i, std::size_t /*worker*/) {
    if (failed) return;
    results[i] = rankResultsOfFile(files[i], per_file);
    if (!*results[i]) failed = true;
    if (options.progress) {
      std::lock_guard lock(progress_mutex);
      options.progress(++done, files.size());
    }
  });

  std::vector<RankResult> ranks;
  for (auto& result : results) {
    if (!result) continue;  // not read: an earlier file failed
    if (!*result) return result->error();
  }
  for (auto& result : results) {
    for (RankResult& r : **result) ranks.push_back(std::move(r));
  }
  return analyzeJob(std::move(ranks));
}

trace::Result<RunAnalysis> analyzeRank(const RankResult& rank, const AnalysisOptions& options) {
  std::optional<RunAnalysis> run;
  const std::optional<std::int64_t> only =
      rank.pid != trace::kUnknownPid ? std::optional<std::int64_t>(rank.pid) : std::nullopt;
  const import::ImportOptions import_options{.progress = {}, .threads = options.threads, .window = options.window};
  const trace::Status read = import::importTraceByProcess(
      rank.file, import_options, {}, only, [&](ProcessTrace&& part) -> trace::Status {
        if (!part.one_of_several && only) {
          // Another format's file of several processes is cut here.
          for (ProcessTrace& own : splitByProcess(part.trace)) {
            if (own.pid == *only) {
              run = analyzeTrace(std::move(own.trace), rank.file, options);
              return {};
            }
          }
        }
        run = analyzeTrace(std::move(part.trace), rank.file, options);
        return {};
      });
  if (!read) return read.error();
  if (!run) return trace::Error{fmt::format("{}: no process {} ran kernels in the file", rank.file, rank.pid)};
  return std::move(run).value();
}

trace::Result<RunAnalysis> analyzeRankOfJob(const JobAnalysis& job, std::int32_t rank, const AnalysisOptions& options) {
  for (const RankResult& result : job.rank_results) {
    if (result.rank == rank) return analyzeRank(result, options);
  }
  std::string ranks;
  for (const RankResult& result : job.rank_results) ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ", result.rank);
  return trace::Error{fmt::format("rank {} is not in the job: it has ranks {}", rank, ranks)};
}

namespace {

trace::Result<RunOrJob> jobOf(std::vector<RankResult> ranks) {
  auto job = analyzeJob(std::move(ranks));
  if (!job) return job.error();
  RunOrJob out;
  out.job = std::move(job).value();
  return out;
}

// One file's trace, analyzed as one run, or as a job where it holds several ranks.
trace::Result<RunOrJob> runOrJobOfTrace(trace::Trace trace, const std::string& path, const AnalysisOptions& options) {
  if (holdsSeveralRanks(trace)) return jobOf(rankResultsOfTrace(std::move(trace), path, options));
  RunOrJob out;
  out.run = analyzeTrace(std::move(trace), path, options);
  return out;
}

}  // namespace

trace::Result<RunOrJob> analyzeRunOrJob(const std::vector<std::string>& paths, const JobReadOptions& options,
                                        const import::ProgressCallback& import_progress,
                                        const std::function<trace::Status(const trace::Trace&)>& after_import) {
  auto files = listTraceFiles(paths);
  if (!files) return files.error();
  if (files->size() > 1) {
    auto job = analyzeJobFiles(*files, options);
    if (!job) return job.error();
    RunOrJob out;
    out.job = std::move(job).value();
    return out;
  }
  const std::string& path = files->front();
  const import::ImportOptions import_options{
      .progress = import_progress, .threads = options.analysis.threads, .window = options.analysis.window};
  if (after_import) {
    auto imported = import::importTrace(path, import_options);
    if (!imported) return imported.error();
    if (trace::Status kept = after_import(*imported); !kept) return kept.error();
    return runOrJobOfTrace(std::move(imported).value(), path, options.analysis);
  }
  // Nothing needs the whole trace: a file of several processes is read one process at a time.
  std::optional<trace::Trace> whole;
  std::vector<RankResult> ranks;
  const trace::Status read = import::importTraceByProcess(
      path, import_options, {}, std::nullopt, [&](ProcessTrace&& part) -> trace::Status {
        if (part.one_of_several) ranks.push_back(rankResultOfPart(std::move(part), path, options.analysis));
        else whole = std::move(part.trace);
        return {};
      });
  if (!read) return read.error();
  if (whole) return runOrJobOfTrace(std::move(*whole), path, options.analysis);
  return jobOf(std::move(ranks));
}

}  // namespace ampscope::analyzer
