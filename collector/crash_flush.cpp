#include "collector/crash_flush.h"

#include <atomic>
#include <csignal>

#include "collector/profile_recorder.h"

namespace ampscope::collector {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGQUIT};
constexpr int kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);

struct sigaction g_previous[kSignalCount];
std::atomic<ProfileRecorder*> g_recorder{nullptr};
std::atomic<bool> g_flushing{false};

int slotOf(int signal) {
  for (int i = 0; i < kSignalCount; ++i) {
    if (kSignals[i] == signal) return i;
  }
  return -1;
}

void onSignal(int signal, siginfo_t* info, void* context) {
  const int slot = slotOf(signal);
  const struct sigaction& previous = g_previous[slot];
  // A program with its own handler decides what the signal means (Python turns SIGINT into an
  // exception and may go on); the recording goes on with it and ends at exit as usual.
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
    return;
  }
  // Death by default: commit first. Only the first such signal flushes; a second one (say, a
  // crash inside the flush) goes straight on.
  ProfileRecorder* recorder = g_recorder.load();
  if (recorder != nullptr && !g_flushing.exchange(true)) {
    recorder->flushForCrash(std::chrono::milliseconds(2000));
  }
  sigaction(signal, &previous, nullptr);
  raise(signal);
}

}  // namespace

void installCrashFlush(ProfileRecorder& recorder) {
  g_recorder.store(&recorder);
  struct sigaction action {};
  action.sa_sigaction = &onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_ONSTACK | SA_SIGINFO;
  for (int i = 0; i < kSignalCount; ++i) {
    struct sigaction current {};
    sigaction(kSignals[i], nullptr, &current);
    // A program that ignores SIGINT or SIGHUP (nohup) keeps ignoring it.
    if (current.sa_handler == SIG_IGN) {
      g_previous[i] = current;
      continue;
    }
    sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

void removeCrashFlush() {
  if (g_recorder.exchange(nullptr) == nullptr) return;
  for (int i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

}  // namespace ampscope::collector
