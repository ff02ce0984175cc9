// Job benchmark: the wall time and peak memory of analyzing several rank traces as one job
// (analyzeJobFiles: every file imported, analyzed and reduced to its compact RankResult on a pool
// of threads, then the job analyzed from the results), against the files' total size.
//
//   ampscope_job_bench FILE... [--threads N]
//
// Run it once with one rank and once with eight (bench/run_benchmarks.sh gives it eight names of
// the large trace): memory should grow by the compact results only, not by the ranks' events, so
// the peak stays near threads x one rank's, however many ranks. Peak RSS is this process's
// high-water mark (VmHWM): one job per process. MB is 10^6 bytes.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analyzer/job_files.h"
#include "bench/process_memory.h"
#include "bench/stopwatch.h"

int main(int argc, char** argv) {
  using namespace ampscope;
  std::vector<std::string> files;
  unsigned threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg.starts_with("--")) {
      std::fprintf(stderr, "usage: ampscope_job_bench FILE... [--threads N]\n");
      return 2;
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: ampscope_job_bench FILE... [--threads N]\n");
    return 2;
  }
  std::uintmax_t bytes = 0;
  for (const std::string& file : files) {
    std::error_code ec;
    bytes += std::filesystem::file_size(file, ec);
  }
  const bench::Stopwatch watch;
  auto job = analyzer::analyzeJobFiles(files, {.analysis = {.gpu = {}, .threads = threads, .window = {}}, .progress = {}});
  const double seconds = watch.seconds();
  if (!job) {
    std::fprintf(stderr, "error: %s\n", job.error().message.c_str());
    return 1;
  }
  std::size_t calls = 0;
  std::size_t steps = 0;
  std::size_t rows = 0;  // the ranks' kernel, layer and op table rows
  for (const analyzer::RankResult& r : job->rank_results) {
    calls += r.calls.size();
    steps += r.steps.size();
    rows += r.tables.kernels.size() + r.tables.layers.size() + r.tables.ops.size();
  }
  fmt::print("ranks: {} (files {}, {:.1f} MB in all), threads: {}\n", job->ranks.size(), files.size(),
             bench::megabytes(bytes), threads == 0 ? std::string("all hardware threads") : std::to_string(threads));
  fmt::print("wall time: {:.2f} s ({:.1f} MB/s of input)\n", seconds, bench::megabytes(bytes) / seconds);
  fmt::print("peak RSS: {:.1f} MB; RSS after: {:.1f} MB\n", bench::megabytes(bench::peakRssBytes()),
             bench::megabytes(bench::currentRssBytes()));
  fmt::print("kept per job: {} steps, {} collective calls, {} kernel/layer/op table rows over {} rank results\n", steps,
             calls, rows, job->rank_results.size());
  return 0;
}
