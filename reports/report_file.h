#pragma once
// Shared by the report writers: writing one file with an error that names it, and the few
// number formats every human-readable report uses, so Markdown and HTML agree.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "analyzer/correlate/iterations.h"
#include "trace/result.h"

namespace ampscope::reports {

// Writes text to dir/name, replacing it. The error names the path and the system's reason.
// Creates dir (and its parents) for a report; fails where it exists as something else.
trace::Status createReportDirectory(const std::filesystem::path& dir);

trace::Status writeReportFile(const std::filesystem::path& dir, std::string_view name,
                              std::string_view text);

// What every report says of a profile recorded on the CPU (TraceSummary::recorded_on_cpu).
inline constexpr const char* kCpuRunNote =
    "the CPU (the trainer's CPU backend): its ops ran on the host, so there are no Tensor Core figures; "
    "they need a GPU run";

std::string formatDuration(std::int64_t ns);  // "812 ns", "41.2 us", "12.34 ms", "1.503 s"
std::string formatBytes(std::int64_t bytes);  // "512 B", "1.5 KiB", "12.3 MiB", "2.61 GiB" (powers of 1024)
std::string formatPercent(double fraction);   // 0.1234 -> "12.3%"
std::string formatSpeedup(double speedup);    // 1.5 -> "1.50x"
std::string formatFlops(double flops);        // 3.2e12 -> "3.20 TFLOP", 4.5e9 -> "4.50 GFLOP"
std::string formatTflops(double tflops);      // 15.7 -> "15.7 TFLOP/s", 0.0123 -> "0.0123 TFLOP/s"

// "the host ran ahead of the GPU: its step ranges average 18.79 ms" where it did
// (analyzer::hostRanAhead), else empty: what every view adds to the steady step.
std::string hostAheadNote(const analyzer::IterationSummary& iterations);

}  // namespace ampscope::reports
