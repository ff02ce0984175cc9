// The guard's SIGBUS handler takes only what is its own: a fault the kernel raised (si_code above
// 0, BUS_ADRERR for a page past a file's end) at an address inside a watched region. Everything
// else goes to the handler installed before it. Each test here raises a real fault, by reading a
// page of a mapped file after the file was truncated under the mapping, or sends the signal with
// the siginfo a sender controls.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "../test_support.h"
#include "analyzer/import/lost_page_guard.h"

namespace ampscope::analyzer::import {
namespace {

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
constexpr std::size_t kReservedPages = 8;

// An 8-page reservation whose first two pages map the file at path (shared, as another program
// sees it). The pages are not read, so a read after the file shrank faults.
char* mapFileIntoReservation(const std::string& path) {
  void* reserved = mmap(nullptr, kReservedPages * kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return nullptr;
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return nullptr;
  void* file = mmap(reserved, 2 * kPage, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
  close(fd);
  return file == MAP_FAILED ? nullptr : static_cast<char*>(reserved);
}

// Reads one byte the compiler cannot leave out.
char readByte(const char* at) { return *static_cast<const volatile char*>(at); }

TEST(LostPageGuardTest, AFaultInsideAWatchedRegionReadsZerosFromItsPageToTheRegionsEnd) {
  test::ScratchDir dir;
  const std::string path = dir.write("shrinking.bin", std::string(2 * kPage, 'x'));
  char* base = mapFileIntoReservation(path);
  ASSERT_NE(base, nullptr);
  const int id = LostPageGuard::watch(base, kReservedPages * kPage);
  ASSERT_GE(id, 0);
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  EXPECT_EQ(readByte(base + kPage + 3), 0) << "a real SIGBUS (BUS_ADRERR) in the region reads as zeros";
  EXPECT_EQ(LostPageGuard::lostFrom(id), std::optional<std::uint64_t>(kPage));
  EXPECT_EQ(readByte(base), 0);
  EXPECT_EQ(LostPageGuard::lostFrom(id), std::optional<std::uint64_t>(0)) << "the lowest page lost is kept";
  LostPageGuard::unwatch(id);
  munmap(base, kReservedPages * kPage);
}

// What the children below report through their exit codes.
constexpr int kPreviousHandlerSawTheFault = 42;
constexpr int kPreviousHandlerSawAnotherSiginfo = 43;
constexpr int kPlainPreviousHandlerCalled = 44;
constexpr int kSetupFailed = 99;

const char* volatile g_fault_address = nullptr;  // where the child's read faults

void previousHandlerCheckingTheFault(int, siginfo_t* info, void*) {
  const bool the_fault = info->si_code == BUS_ADRERR && info->si_addr == g_fault_address;
  _exit(the_fault ? kPreviousHandlerSawTheFault : kPreviousHandlerSawAnotherSiginfo);
}

void plainPreviousHandler(int) { _exit(kPlainPreviousHandlerCalled); }

void installPrevious(void (*handler)(int)) { signal(SIGBUS, handler); }

void installPrevious(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

// In a death test's child: the previous handler first, then the file mapped below a watched
// region (watching installs the guard over that handler), then a real fault at the file's
// second page, below the region's start. Had the guard taken it, the read would return.
template <typename Handler>
void faultBelowAWatchedRegion(const std::string& path, Handler previous) {
  installPrevious(previous);
  char* base = mapFileIntoReservation(path);
  if (base == nullptr) _exit(kSetupFailed);
  // The region lies above the fault, so that a guard that forgot to check the address would
  // cover the fault with its replacement (from the faulting page to the region's end).
  if (LostPageGuard::watch(base + 4 * kPage, 4 * kPage) < 0) _exit(kSetupFailed);
  if (truncate(path.c_str(), 0) != 0) _exit(kSetupFailed);
  g_fault_address = base + kPage + 5;
  readByte(g_fault_address);
  fprintf(stderr, "the read of a lost page outside every watched region returned\n");
  _exit(0);
}

TEST(LostPageGuardDeathTest, AFaultOutsideEveryWatchedRegionTakesTheDefaultAction) {
  test::ScratchDir dir;
  const std::string path = dir.write("unwatched.bin", std::string(2 * kPage, 'x'));
  EXPECT_EXIT(faultBelowAWatchedRegion(path, SIG_DFL), testing::KilledBySignal(SIGBUS), "");
}

TEST(LostPageGuardDeathTest, AFaultOutsideEveryWatchedRegionReachesTheHandlerInstalledBeforeAsItWas) {
  test::ScratchDir dir;
  const std::string path = dir.write("unwatched.bin", std::string(2 * kPage, 'x'));
  EXPECT_EXIT(faultBelowAWatchedRegion(path, previousHandlerCheckingTheFault),
              testing::ExitedWithCode(kPreviousHandlerSawTheFault), "");
  EXPECT_EXIT(faultBelowAWatchedRegion(path, plainPreviousHandler),
              testing::ExitedWithCode(kPlainPreviousHandlerCalled), "");
}

// In a death test's child: a watched region, then SIGBUS sent to this thread with a siginfo of
// the sender's making. A sender picks si_code (SI_QUEUE here, below 0) and the bytes where a
// fault's address would be (kill() puts its pid and uid there): here, an address in the region.
void sendBusErrorPointingIntoAWatchedRegion(int si_code) {
  installPrevious(SIG_DFL);  // what is passed on meets the default action, not a sanitizer's handler
  void* region = mmap(nullptr, 4 * kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED || LostPageGuard::watch(static_cast<char*>(region), 4 * kPage) < 0) _exit(kSetupFailed);
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  info.si_signo = SIGBUS;
  info.si_code = si_code;
  info.si_addr = static_cast<char*>(region) + kPage;
  syscall(SYS_rt_tgsigqueueinfo, getpid(), static_cast<pid_t>(syscall(SYS_gettid)), SIGBUS, &info);
  fprintf(stderr, "a SIGBUS that a process sent was taken for a lost page\n");
  _exit(0);
}

TEST(LostPageGuardDeathTest, ABusErrorAProcessSentIsPassedOnWhateverItsAddressField) {
  EXPECT_EXIT(sendBusErrorPointingIntoAWatchedRegion(SI_QUEUE), testing::KilledBySignal(SIGBUS), "");
  EXPECT_EXIT(sendBusErrorPointingIntoAWatchedRegion(SI_TKILL), testing::KilledBySignal(SIGBUS), "");
}

TEST(LostPageGuardDeathTest, ARaisedBusErrorIsPassedOn) {
  const auto raiseOverAWatchedRegion = [] {
    installPrevious(SIG_DFL);  // as above: the default action behind the guard
    void* region = mmap(nullptr, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || LostPageGuard::watch(static_cast<char*>(region), kPage) < 0) _exit(kSetupFailed);
    raise(SIGBUS);
    _exit(0);
  };
  EXPECT_EXIT(raiseOverAWatchedRegion(), testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
}  // namespace ampscope::analyzer::import
