// Profile database benchmark: how fast ampscope's own database is written and read back.
//
//   ampscope_profile_db_bench [--kernels N] [--no-launches] [--keep FILE]
//   ampscope_profile_db_bench --read FILE [--kernels N]
//
// Builds a synthetic trace of N kernels (default 5,000,000) plus one launch call per kernel,
// writes it with writeProfile to a temporary file (write rows/s), then reads it back with
// readProfile in a fresh process (kernel rows/s, peak RSS per million events), so that the peak
// RSS reported for reading is not that of building and writing the trace. --read FILE does only
// the read half (that is what the fresh process runs). MB is 10^6 bytes throughout.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "bench/process_memory.h"
#include "bench/stopwatch.h"
#include "bench/synthetic_trace_model.h"
#include "trace/db/profile_reader.h"
#include "trace/db/profile_writer.h"

extern char** environ;

namespace {

using ampscope::bench::currentRssBytes;
using ampscope::bench::megabytes;
using ampscope::bench::peakRssBytes;
using ampscope::bench::Stopwatch;

constexpr double kTargetKernelRowsPerSecond = 5e6;
constexpr double kTargetPeakMegabytesPerMillionEvents = 200.0;

struct Options {
  std::uint64_t kernels = 5'000'000;
  bool kernels_given = false;
  bool launches = true;
  std::string keep_path;  // write here and leave the file
  std::string read_path;  // --read: only read this file
};

void usage() {
  std::fputs("usage: ampscope_profile_db_bench [--kernels N] [--no-launches] [--keep FILE]\n"
             "       ampscope_profile_db_bench --read FILE [--kernels N]\n"
             "Writes a synthetic trace of N kernels to a profile database and reads it back.\n",
             stderr);
}

bool parseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--kernels" && has_value) {
      char* end = nullptr;
      options.kernels = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || options.kernels == 0) return false;
      options.kernels_given = true;
    } else if (arg == "--no-launches") {
      options.launches = false;
    } else if (arg == "--keep" && has_value) {
      options.keep_path = argv[++i];
    } else if (arg == "--read" && has_value) {
      options.read_path = argv[++i];
    } else {
      return false;
    }
  }
  return true;
}

double perSecond(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

std::uint64_t sizeOrZero(const std::string& path) {
  std::error_code ec;
  const std::uint64_t bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

// The read half, meant to run in a process of its own.
int readBench(const Options& options) {
  const std::uint64_t rss_at_start = peakRssBytes();
  const Stopwatch watch;
  auto result = ampscope::trace::db::readProfile(options.read_path);
  const double seconds = watch.seconds();
  if (!result.ok()) {
    std::fprintf(stderr, "read failed: %s\n", result.error().message.c_str());
    return 1;
  }
  const ampscope::trace::Trace& trace = *result;
  const std::uint64_t peak = peakRssBytes();
  const std::uint64_t kernels = trace.kernels.size();
  const std::uint64_t events = trace.eventCount();
  const std::uint64_t rows =
      events + trace.strings.size() + trace.threads.size() + trace.devices.size();
  if (options.kernels_given && kernels != options.kernels) {
    std::fprintf(stderr, "read back %llu kernels, expected %llu\n",
                 static_cast<unsigned long long>(kernels),
                 static_cast<unsigned long long>(options.kernels));
    return 1;
  }
  const double kernel_rate = perSecond(static_cast<double>(kernels), seconds);
  const double peak_per_million = megabytes(peak) / (static_cast<double>(events) / 1e6);
  fmt::print("read seconds:             {:.3f} (readProfile, whole file, fresh process)\n",
             seconds);
  fmt::print("read kernel rows/s:       {:.0f} ({} kernels / whole read time)\n", kernel_rate,
             kernels);
  fmt::print("read rows/s (all tables): {:.0f} ({} rows: kernels {}, launches {}, strings {})\n",
             perSecond(static_cast<double>(rows), seconds), rows, kernels, trace.launches.size(),
             trace.strings.size());
  fmt::print("RSS at start:             {:.1f} MB\n", megabytes(rss_at_start));
  fmt::print("RSS after read:           {:.1f} MB (the Trace held)\n",
             megabytes(currentRssBytes()));
  fmt::print("Trace::memoryBytes():     {:.1f} MB ({:.1f} MB of it unused vector capacity)\n",
             megabytes(trace.memoryBytes()),
             megabytes(trace.kernels.capacity() * sizeof(ampscope::trace::Kernel) +
                       trace.launches.capacity() * sizeof(ampscope::trace::LaunchCall) -
                       kernels * sizeof(ampscope::trace::Kernel) -
                       trace.launches.size() * sizeof(ampscope::trace::LaunchCall)));
  fmt::print("peak RSS:                 {:.1f} MB\n", megabytes(peak));
  fmt::print("peak RSS per M events:    {:.1f} MB per million events ({} events)\n",
             peak_per_million, events);
  fmt::print("target read >= 5 M kernel rows/s: {} ({:.2f} M/s)\n",
             verdict(kernel_rate >= kTargetKernelRowsPerSecond), kernel_rate / 1e6);
  fmt::print("target peak RSS <= {:.0f} MB per million events: {} ({:.1f})\n",
             kTargetPeakMegabytesPerMillionEvents,
             verdict(peak_per_million <= kTargetPeakMegabytesPerMillionEvents), peak_per_million);
  return 0;
}

// Runs this executable again with --read, so that reading is measured in a fresh process.
int readInFreshProcess(const std::string& path, std::uint64_t kernels) {
  std::string exe = "/proc/self/exe";
  std::string read_flag = "--read";
  std::string kernels_flag = "--kernels";
  std::string kernels_value = std::to_string(kernels);
  std::vector<char*> argv = {exe.data(), read_flag.data(), const_cast<char*>(path.c_str()),
                             kernels_flag.data(), kernels_value.data(), nullptr};
  std::fflush(stdout);
  pid_t child = 0;
  if (const int error = posix_spawn(&child, exe.c_str(), nullptr, nullptr, argv.data(), environ)) {
    std::fprintf(stderr, "cannot start %s: %s\n", exe.c_str(), std::strerror(error));
    return 1;
  }
  int status = 0;
  if (waitpid(child, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void removeDatabase(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parseOptions(argc, argv, options)) {
    usage();
    return 2;
  }
  if (!options.read_path.empty()) return readBench(options);

  const std::string path = !options.keep_path.empty()
      ? options.keep_path
      : (std::filesystem::temp_directory_path() /
         fmt::format("ampscope_profile_db_bench_{}.ampscope", getpid())).string();

  std::uint64_t rows = 0;
  std::uint64_t events = 0;
  {
    const ampscope::bench::SyntheticTraceModel model{.kernels = options.kernels,
                                                     .launches = options.launches};
    const Stopwatch build_watch;
    const ampscope::trace::Trace trace = model.build();
    fmt::print("synthetic trace:          {} kernels, {} launches, {} strings (built in "
               "{:.2f} s)\n",
               trace.kernels.size(), trace.launches.size(), trace.strings.size(),
               build_watch.seconds());
    events = trace.eventCount();
    rows = events + trace.strings.size() + trace.threads.size() + trace.devices.size();

    const Stopwatch write_watch;
    const ampscope::trace::Status written = ampscope::trace::db::writeProfile(path, trace);
    const double seconds = write_watch.seconds();
    if (!written.ok()) {
      std::fprintf(stderr, "write failed: %s\n", written.error().message.c_str());
      removeDatabase(path);
      return 1;
    }
    fmt::print("database:                 {}\n", path);
    fmt::print("write seconds:            {:.3f} (writeProfile: create, schema, all rows)\n",
               seconds);
    fmt::print("write rows/s:             {:.0f} ({} rows), {:.0f} kernel rows/s\n",
               perSecond(static_cast<double>(rows), seconds), rows,
               perSecond(static_cast<double>(trace.kernels.size()), seconds));
  }
  const std::uint64_t db_bytes = sizeOrZero(path);
  fmt::print("database file bytes:      {} ({:.1f} MB, {:.1f} bytes per event){}\n", db_bytes,
             megabytes(db_bytes), static_cast<double>(db_bytes) / static_cast<double>(events),
             sizeOrZero(path + "-wal") > 0
                 ? fmt::format(" + WAL {:.1f} MB", megabytes(sizeOrZero(path + "-wal")))
                 : std::string());
  const int read_status = readInFreshProcess(path, options.kernels);
  if (options.keep_path.empty()) removeDatabase(path);
  return read_status;
}
