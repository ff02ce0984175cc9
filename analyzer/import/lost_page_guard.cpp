#include "analyzer/import/lost_page_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <limits>
#include <mutex>

namespace ampscope::analyzer::import {

namespace {

constexpr std::uint64_t kNothingLost = std::numeric_limits<std::uint64_t>::max();

// The watched regions: a fixed table of atomics, so that the signal handler can read it without
// locks or allocation. A slot is claimed (taken), filled, and published by setting its start last;
// it is given back by clearing its start first.
struct WatchedRegion {
  std::atomic<bool> taken{false};
  std::atomic<const char*> start{nullptr};
  std::atomic<std::size_t> bytes{0};
  std::atomic<std::uint64_t> lost_from{kNothingLost};
};
// A job's ranks are read one per hardware thread at once (analyzeJobFiles), and hosts of 8 GPUs
// have up to some 250 of them: 1,024 regions leave room for a GUI or Python session that holds a
// few more. 32 KiB, and a SIGBUS (rare) looks through them in microseconds.
constexpr int kSlots = 1024;
WatchedRegion g_regions[kSlots];
static_assert(std::atomic<const char*>::is_always_lock_free && std::atomic<std::uint64_t>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

std::atomic<std::size_t> g_page_size{4096};
struct sigaction g_previous_action {};
std::mutex g_install_mutex;

// Only async-signal-safe work from here on: atomics and system calls (mmap is one on Linux: glibc's
// wrapper takes no lock), no allocation, no locks.
bool replaceLostPages(const void* address) {
  const char* at = static_cast<const char*>(address);
  for (WatchedRegion& region : g_regions) {
    const char* start = region.start.load(std::memory_order_acquire);
    const std::size_t bytes = region.bytes.load(std::memory_order_relaxed);
    if (start == nullptr || at < start || at >= start + bytes) continue;
    const std::size_t page = g_page_size.load(std::memory_order_relaxed);
    const auto page_start = reinterpret_cast<std::uintptr_t>(at) / page * page;
    char* first = reinterpret_cast<char*>(page_start);
    // The pages after the faulting one lie past the file's new end too: replaced at once, so that
    // the read does not fault page by page. MAP_FIXED swaps them in one system call.
    if (mmap(first, static_cast<std::size_t>(start + bytes - first), PROT_READ,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      return false;
    }
    const auto offset = static_cast<std::uint64_t>(first - start);
    std::uint64_t lowest = region.lost_from.load(std::memory_order_relaxed);
    while (offset < lowest && !region.lost_from.compare_exchange_weak(lowest, offset, std::memory_order_relaxed)) {
    }
    return true;
  }
  return false;
}

void onBusError(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // Only a fault the kernel raised has an address: a SIGBUS sent by kill() or raise() (si_code
  // of 0 or below) carries a sender's pid where si_addr would be.
  const bool replaced = info != nullptr && info->si_code > 0 && replaceLostPages(info->si_addr);
  errno = saved_errno;
  if (replaced) return;  // the faulting read runs again, over zeros
  const struct sigaction& previous = g_previous_action;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal_number);
    return;
  }
  // The default action (a bus error cannot be ignored): taken once this handler returns.
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void installHandler() {
  const std::lock_guard lock(g_install_mutex);
  struct sigaction current {};
  if (sigaction(SIGBUS, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == onBusError) return;
  g_page_size.store(static_cast<std::size_t>(sysconf(_SC_PAGESIZE)), std::memory_order_relaxed);
  g_previous_action = current;
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

}  // namespace

int LostPageGuard::watch(const char* start, std::size_t bytes) {
  installHandler();
  for (int i = 0; i < kSlots; ++i) {
    WatchedRegion& region = g_regions[i];
    if (region.taken.exchange(true, std::memory_order_acquire)) continue;
    region.bytes.store(bytes, std::memory_order_relaxed);
    region.lost_from.store(kNothingLost, std::memory_order_relaxed);
    region.start.store(start, std::memory_order_release);
    return i;
  }
  return -1;
}

void LostPageGuard::unwatch(int id) {
  if (id < 0) return;
  g_regions[id].start.store(nullptr, std::memory_order_release);
  g_regions[id].taken.store(false, std::memory_order_release);
}

std::optional<std::uint64_t> LostPageGuard::lostFrom(int id) {
  if (id < 0) return std::nullopt;
  const std::uint64_t lost = g_regions[id].lost_from.load(std::memory_order_acquire);
  if (lost == kNothingLost) return std::nullopt;
  return lost;
}

}  // namespace ampscope::analyzer::import
