#include "cli/record_command.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/exit_codes.h"
#include "collector/gpu_recording.h"
#include "collector/inject/injected_recording.h"
#include "collector/inject/process_profile_path.h"
#include "trace/db/profile_appender.h"
#include "trace/db/profile_reader.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibraryName = "libampscope_inject.so";

std::string findInjectLibrary(const std::string& chosen) {
  if (!chosen.empty()) return chosen;
  if (const char* from_env = std::getenv("AMPSCOPE_INJECT_LIBRARY")) return from_env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return kLibraryName;
  for (const fs::path& candidate : {exe.parent_path() / kLibraryName, exe.parent_path() / ".." / "lib" / kLibraryName}) {
    if (fs::exists(candidate)) return fs::canonical(candidate).string();
  }
  return (exe.parent_path() / kLibraryName).string();
}

std::string joinCommand(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& word : command) {
    if (!out.empty()) out += ' ';
    out += word.find_first_of(" \t'\"") == std::string::npos ? word : "'" + word + "'";
  }
  return out;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// In the child: sets the injection variables and runs the command; returns only on failure.
[[noreturn]] void execRecorded(const RecordOptions& options, const std::string& library, const std::string& output) {
  setenv("NVTX_INJECTION64_PATH", library.c_str(), 1);
  setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
  setenv(collector::kOutputVariable, output.c_str(), 1);
  setenv(collector::kPidVariable, std::to_string(getpid()).c_str(), 1);
  setenv(collector::kCommandVariable, joinCommand(options.command).c_str(), 1);
  if (!options.kinds.empty()) setenv(collector::kKindsVariable, options.kinds.c_str(), 1);
  if (!options.metrics.empty()) setenv(collector::kMetricsVariable, options.metrics.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& word : options.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const std::string message = fmt::format("ampscope record: cannot run '{}': {}\n", options.command[0], std::strerror(errno));
  (void)!write(STDERR_FILENO, message.data(), message.size());
  _exit(kExitCannotRun);
}

// Waits for the child, leaving Ctrl-C to it (the terminal sends it to both) and passing on a
// request to terminate, so the program ends as it chooses and the profile is flushed.
int waitFor(pid_t child) {
  struct sigaction ignore {}, old_int {}, old_term {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &ignore, &old_term);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return status;
}

std::string metaValue(trace::db::SqliteDatabase& db, std::string_view key) {
  auto statement = db.prepare("SELECT value FROM ampscope_meta WHERE key = ?");
  if (!statement) return {};
  statement->bind(1, key);
  return statement->step() ? std::string(statement->text(0)) : std::string();
}

collector::MetricsMode metricsMode(const RecordOptions& options) {
  auto mode = collector::parseMetricsMode(options.metrics);
  return mode ? *mode : collector::MetricsMode::kNone;
}

// Folds a log left by a program that died into the profile, so it is one readable file.
void foldLog(const std::string& path) {
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kCreate);
  if (db) (void)db->execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE");
}

void writeEmptyProfile(const std::string& path, const std::string& command) {
  auto db = trace::db::createProfileDatabase(path);
  if (!db) return;
  auto appender = trace::db::ProfileAppender::create(*db);
  if (!appender) return;
  (void)appender->meta("source_format", "ampscope");
  (void)appender->meta("source_detail", command);
  (void)db->execute("PRAGMA journal_mode=DELETE");
}

// What the hardware counters (--metrics) of a profile hold, or why they hold nothing.
void describeMetrics(const trace::Trace& profile, const std::string& path, std::string meta, std::ostream& out,
                     std::ostream& err) {
  // The meta value says "recorded: WHAT" or "unavailable: WHY"; the line below says which.
  for (std::string_view state : {"recorded: ", "unavailable: "}) {
    if (meta.starts_with(state)) meta.erase(0, state.size());
  }
  if (!profile.metric_samples.empty() || !profile.kernel_metrics.empty()) {
    out << fmt::format("ampscope record: {}: hardware counters: {} metric samples, {} kernel ranges ({})\n", path,
                       profile.metric_samples.size(), profile.kernel_metrics.size(), meta);
  } else if (meta.empty()) {
    err << "ampscope record: " << path << ": no hardware counters were recorded: the program did not initialise "
        << "CUDA, or no GPU activity could be recorded\n";
  } else {
    err << "ampscope record: " << path << ": no hardware counters were recorded: " << meta << "\n";
  }
}

void describeProfile(const std::string& path, bool metrics, std::ostream& out, std::ostream& err) {
  auto trace = trace::db::readProfile(path);
  if (!trace) {
    err << "ampscope record: the profile could not be read: " << trace.error().message << "\n";
    return;
  }
  out << fmt::format("ampscope record: {}: {} ranges, {} kernels, {} memory operations, {} CUDA API calls, {} counters\n",
                     path, trace->ranges.size(), trace->kernels.size(), trace->memory_ops.size(),
                     trace->launches.size(), trace->counters.size());
  for (const auto& [reason, count] : trace->import_stats.lost) {
    err << fmt::format("ampscope record: lost {}: {}\n", count, reason);
  }
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
  const std::string gpu = db ? metaValue(*db, collector::kGpuActivityMeta) : std::string();
  if (gpu.empty()) {
    err << "ampscope record: " << path << ": no GPU activity could be recorded: the program did not initialise CUDA, "
           "or this machine has no NVIDIA driver. NVTX ranges were recorded.\n";
  } else if (gpu != "recorded") {
    err << "ampscope record: " << path << ": no GPU activity could be recorded: " << gpu << "\n";
  }
  if (metrics) describeMetrics(*trace, path, db ? metaValue(*db, collector::kHardwareMetricsMeta) : std::string(), out, err);
}

// Profiles that other processes of the program's tree wrote beside output during this run, by
// pid: found by the profile or by the PATH.error a process leaves when it could not create its
// profile, written since the run began. Older files of the same shape are not ours to touch: a
// user's run.20240101.sqlite looks just like a profile of process 20240101.
std::map<long long, std::string> processProfiles(const std::string& output, fs::file_time_type since) {
  constexpr std::string_view kErrorSuffix = ".error";
  std::map<long long, std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(output).parent_path(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > kErrorSuffix.size() && name.ends_with(kErrorSuffix)) name.resize(name.size() - kErrorSuffix.size());
    const auto pid = collector::processOfProfilePath(name, output);
    if (!pid) continue;
    std::error_code time_ec;
    const fs::file_time_type written = entry.last_write_time(time_ec);
    if (time_ec || written < since) continue;
    found[*pid] = (entry.path().parent_path() / name).string();
  }
  return found;
}

// A process of the tree that is still running when the started one has ended (left in the
// background, or orphaned): its profile is still being written, so it is only named.
bool stillRunning(long long pid) { return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

void removeProfile(const std::string& path) {
  for (const std::string& stale : {path, path + "-wal", path + "-shm", path + ".error"}) {
    std::error_code ec;
    fs::remove(stale, ec);
  }
}

void reportCollectorError(const std::string& profile, std::ostream& err) {
  if (fs::exists(profile + ".error")) {
    err << "ampscope record: the collector failed for " << profile << ": " << readAll(profile + ".error") << "\n";
  }
}

// Says which processes wrote which profiles when the command's own process did not record, and
// gives output to the only one that did. Returns the profiles still to describe besides output.
std::map<long long, std::string> settleProcessProfiles(const std::string& output, std::map<long long, std::string> others,
                                                       bool others_still_running, const std::string& command,
                                                       std::ostream& err) {
  if (fs::exists(output)) return others;
  if (others.empty() && others_still_running) {
    err << "ampscope record: the command's own process made no NVTX or CUDA calls; its processes that did are "
           "still running (named above), so " << output << " was not written\n";
    return others;
  }
  if (others.empty()) {
    writeEmptyProfile(output, command);
    err << "ampscope record: the program made no NVTX or CUDA calls, so there was nothing to record; "
        << output << " is an empty profile\n";
    return others;
  }
  if (others.size() == 1) {
    const auto [pid, path] = *others.begin();
    std::error_code ec;
    fs::rename(path, output, ec);
    if (!ec) {
      err << fmt::format("ampscope record: the command's own process made no NVTX or CUDA calls; its process {} "
                         "did, and its profile is {}\n", pid, output);
      return {};
    }
  }
  err << fmt::format("ampscope record: the command's own process made no NVTX or CUDA calls, so {} was not "
                     "written; {} of its processes did, each into its own profile:\n", output, others.size());
  for (const auto& [pid, path] : others) err << fmt::format("  process {}: {}\n", pid, path);
  return others;
}

}  // namespace

int runRecord(const RecordOptions& options, std::ostream& out, std::ostream& err) {
  if (options.command.empty()) {
    err << "ampscope record: no command given (usage: ampscope record [-o FILE] -- COMMAND ARGS...)\n";
    return kExitBadInput;
  }
  if (!options.kinds.empty()) {
    if (auto kinds = collector::parseGpuKinds(options.kinds); !kinds) {
      err << "ampscope record: " << kinds.error().message << "\n";
      return kExitBadInput;
    }
  }
  if (auto metrics = collector::parseMetricsMode(options.metrics); !metrics) {
    err << "ampscope record: " << metrics.error().message << "\n";
    return kExitBadInput;
  } else if (*metrics == collector::MetricsMode::kPerKernel) {
    err << "ampscope record: --metrics tensor:per-kernel: " << collector::kPerKernelCost << "\n";
  }
  const std::string library = findInjectLibrary(options.inject_library);
  if (!fs::exists(library)) {
    err << "ampscope record: the injection library " << library << " is missing (build the ampscope_inject target, or set AMPSCOPE_INJECT_LIBRARY)\n";
    return kExitBadInput;
  }
  const std::string output = fs::absolute(options.output).string();
  // Refused before the program runs: a recording it could not write would be lost with its run.
  const fs::path folder = fs::path(output).parent_path();
  if (fs::is_directory(output)) {
    err << "ampscope record: -o " << output << " is a directory; give a file name for the profile\n";
    return kExitBadInput;
  }
  if (!fs::is_directory(folder) || access(folder.c_str(), W_OK) != 0) {
    err << "ampscope record: -o " << output << ": the folder " << folder.string()
        << " does not exist or cannot be written\n";
    return kExitBadInput;
  }
  // A profile is written whole: what an earlier recording to the same name left goes first.
  removeProfile(output);
  // Profiles of the program's other processes are the files of their shape written from now on
  // (whole seconds back: some file systems keep coarse times).
  const fs::file_time_type run_began = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  out.flush();
  const pid_t child = fork();
  if (child < 0) {
    err << "ampscope record: fork failed: " << std::strerror(errno) << "\n";
    return kExitBadInput;
  }
  if (child == 0) execRecorded(options, library, output);
  const int status = waitFor(child);

  int exit_code = kExitOk;
  if (WIFEXITED(status)) {
    exit_code = WEXITSTATUS(status);
    // Could not run it (already said), unless the 127 came from a script whose processes recorded.
    if (exit_code == kExitCannotRun && !fs::exists(output) && processProfiles(output, run_began).empty()) {
      return kExitCannotRun;
    }
  } else if (WIFSIGNALED(status)) {
    exit_code = kExitSignalBase + WTERMSIG(status);
    err << fmt::format("ampscope record: the program was killed by signal {} ({}); the profile holds what was "
                       "recorded until then\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  // Every process of the tree that reached NVTX or CUDA left a profile: fold each one's log
  // (a process that died leaves it unfolded) before reading or moving it.
  std::map<long long, std::string> others = processProfiles(output, run_began);
  reportCollectorError(output, err);
  for (const auto& [pid, path] : others) reportCollectorError(path, err);
  std::erase_if(others, [](const auto& process) { return !fs::exists(process.second); });
  const std::size_t still_running = std::erase_if(others, [&err](const auto& process) {
    if (!stillRunning(process.first)) return false;
    err << fmt::format("ampscope record: process {} of the program is still running; its profile {} is complete "
                       "when it exits\n", process.first, process.second);
    return true;
  });
  if (fs::exists(output)) foldLog(output);
  for (const auto& [pid, path] : others) foldLog(path);
  others = settleProcessProfiles(output, std::move(others), still_running > 0, joinCommand(options.command), err);
  const bool metrics = metricsMode(options) != collector::MetricsMode::kNone;
  if (fs::exists(output)) describeProfile(output, metrics, out, err);
  for (const auto& [pid, path] : others) describeProfile(path, metrics, out, err);
  return exit_code;
}

}  // namespace ampscope::cli
