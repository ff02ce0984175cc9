#include "cli/bus_error_report.h"

#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "analyzer/import/mapped_file.h"
#include "cli/exit_codes.h"

namespace ampscope::cli {

namespace {

// Only async-signal-safe calls from here on: write(2), no allocation, no stdio.
void writeText(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t written = write(STDERR_FILENO, text, left);
    if (written <= 0) return;
    text += written;
    left -= static_cast<std::size_t>(written);
  }
}

void writeNumber(std::uint64_t number) {
  char digits[24];
  char* at = digits + sizeof digits;
  *--at = '\0';
  do {
    *--at = static_cast<char>('0' + number % 10);
    number /= 10;
  } while (number != 0);
  writeText(at);
}

void onBusError(int signal_number, siginfo_t* info, void*) {
  const char* path = nullptr;
  std::uint64_t offset = 0;
  if (info != nullptr && analyzer::import::MappedFile::fileAt(info->si_addr, path, offset)) {
    writeText("\nampscope: ");
    writeText(path);
    writeText(": the file shrank while it was being read (reading byte offset ");
    writeNumber(offset);
    writeText(" failed); read it again once nothing is writing it\n");
    _exit(kExitBadInput);
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

}  // namespace

void reportShrunkTraceFilesOnBusError() {
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

}  // namespace ampscope::cli
