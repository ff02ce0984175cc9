#include "collector/inject/injected_recording.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

#include <pthread.h>
#include <unistd.h>

#include "collector/crash_flush.h"
#include "collector/inject/process_profile_path.h"
#include "collector/nvtx/nvtx_tool.h"

namespace ampscope::collector {

namespace {

std::unique_ptr<ProfileRecorder>* g_recording = nullptr;  // leaked: must outlive static destructors
pid_t g_recording_pid = 0;

void stopAtExit() {
  // A forked child inherits the recorder but not its writer thread: only the parent stops it.
  if (g_recording == nullptr || !*g_recording || getpid() != g_recording_pid) return;
  removeCrashFlush();
  const trace::Status stopped = (*g_recording)->stop();
  if (!stopped) {
    std::ofstream(std::string((*g_recording)->path()) + ".error") << stopped.error().message << "\n";
  }
}

void inForkedChild() { setNvtxCapture(false); }

bool isTheStartedProcess() {
  const char* pid = std::getenv(kPidVariable);
  return pid != nullptr && std::atoll(pid) == static_cast<long long>(getpid());
}

// This process's arguments, space-separated, for a descendant's profile (record's command line
// names only the process it started).
std::string ownCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line;
  for (std::string word; std::getline(in, word, '\0');) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

ProfileRecorder* injectedRecording() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* output = std::getenv(kOutputVariable);
    if (output == nullptr) return;
    RecorderOptions options;
    options.path = isTheStartedProcess() ? std::string(output) : processProfilePath(output, getpid());
    const char* command = std::getenv(kCommandVariable);
    options.source_detail = isTheStartedProcess() ? (command != nullptr ? command : "") : ownCommandLine();
    auto started = ProfileRecorder::start(options);
    if (!started) {
      std::ofstream(options.path + ".error") << started.error().message << "\n";
      return;
    }
    g_recording = new std::unique_ptr<ProfileRecorder>(std::move(started).value());
    g_recording_pid = getpid();
    installCrashFlush(**g_recording);
    pthread_atfork(nullptr, nullptr, &inForkedChild);
    std::atexit(&stopAtExit);
  });
  return g_recording != nullptr ? g_recording->get() : nullptr;
}

}  // namespace ampscope::collector
