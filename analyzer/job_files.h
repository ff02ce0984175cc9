#pragma once
// Reading a job's traces: the files of a folder or a list, each imported, split into ranks where
// it holds several processes, analyzed and reduced to its compact RankResult on a pool of
// threads (one file per thread at a time, so memory holds at most that many traces, however
// many ranks the job has), then the job analyzed from the results.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/analysis_options.h"
#include "analyzer/import/import_options.h"
#include "analyzer/job/job_analysis.h"
#include "analyzer/run_analysis.h"
#include "trace/result.h"

namespace ampscope::analyzer {

// The trace files the paths name: a file as it is, a folder's files whose content is a trace
// format's (not its other files), in natural name order ("rank2" before "rank10"). Fails on a
// path that does not exist and on a folder without traces.
trace::Result<std::vector<std::string>> listTraceFiles(const std::vector<std::string>& paths);

struct JobReadOptions {
  AnalysisOptions analysis;  // analysis.threads: all the threads the job may use (0: every hardware thread)
  // Called (from the worker threads, one call at a time) when a file is done: (files done, files).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// The ranks one file holds: itself, or one per process that ran kernels (numbered by device); an
// Nsight Systems export of several processes is read one process at a time.
trace::Result<std::vector<RankResult>> rankResultsOfFile(const std::string& path, const AnalysisOptions& options);
// The same for a trace already imported from path.
std::vector<RankResult> rankResultsOfTrace(trace::Trace trace, const std::string& path, const AnalysisOptions& options);

// Whether an imported trace is several ranks (a file of several processes that ran kernels).
bool holdsSeveralRanks(const trace::Trace& trace);

// Every file's ranks, then the job. The first file that fails stops the rest, and its error
// (naming the file) is the result.
trace::Result<JobAnalysis> analyzeJobFiles(const std::vector<std::string>& files, const JobReadOptions& options);

// The complete analysis of one rank of a job, for a view that opens it: its file, or its
// process's part of the file.
trace::Result<RunAnalysis> analyzeRank(const RankResult& rank, const AnalysisOptions& options);
// The same for the job's rank numbered `rank`; fails listing the job's ranks where it has none.
trace::Result<RunAnalysis> analyzeRankOfJob(const JobAnalysis& job, std::int32_t rank, const AnalysisOptions& options);

// What the paths a user gave hold, analyzed, as every view reads them: one run (one file of one
// process), or a job (several files, a folder, a file of several processes).
struct RunOrJob {
  std::optional<RunAnalysis> run;
  std::optional<JobAnalysis> job;
};
// import_progress reports a single file's import; options.progress the files of a job.
// after_import, when given, sees a single file's imported trace before it is analyzed (to keep
// it as a profile); its error stops the analysis and is the result.
trace::Result<RunOrJob> analyzeRunOrJob(const std::vector<std::string>& paths, const JobReadOptions& options,
                                        const import::ProgressCallback& import_progress = {},
                                        const std::function<trace::Status(const trace::Trace&)>& after_import = {});

}  // namespace ampscope::analyzer
