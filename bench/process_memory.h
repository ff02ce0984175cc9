#pragma once
// What the benchmarks measure besides time: this process's memory (Linux). Peak RSS is the
// kernel's high-water mark for the whole process, so a benchmark measures one thing per process.

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace ampscope::bench {

// Peak resident set size of this process so far as getrusage reports it (ru_maxrss), in bytes.
// Caveat: a process started by posix_spawn/vfork and exec inherits its parent's high-water mark
// here, so a benchmark that re-executes itself reads peakRssBytes() instead.
inline std::uint64_t rusagePeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// Peak resident set size of this process's own address space (VmHWM in /proc/self/status,
// which starts afresh at exec), in bytes; ru_maxrss where /proc cannot be read.
inline std::uint64_t peakRssBytes() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return rusagePeakRssBytes();
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, status)) {
    found = std::sscanf(line, "VmHWM: %llu kB", &kib) == 1;
  }
  std::fclose(status);
  return found ? kib * 1024 : rusagePeakRssBytes();
}

// Current resident set size (/proc/self/statm), in bytes; 0 where it cannot be read.
inline std::uint64_t currentRssBytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return 0;
  unsigned long long pages_total = 0;
  unsigned long long pages_resident = 0;
  const int read = std::fscanf(statm, "%llu %llu", &pages_total, &pages_resident);
  std::fclose(statm);
  if (read != 2) return 0;
  const long page_bytes = sysconf(_SC_PAGESIZE);
  return pages_resident * static_cast<unsigned long long>(page_bytes > 0 ? page_bytes : 4096);
}

// Figures are printed in decimal megabytes (10^6 bytes), the unit of the targets.
inline double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

}  // namespace ampscope::bench
