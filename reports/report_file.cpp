#include "reports/report_file.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace ampscope::reports {

trace::Status writeReportFile(const std::filesystem::path& dir, std::string_view name,
                              std::string_view text) {
  const std::filesystem::path path = dir / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return trace::Error{fmt::format("{}: cannot open for writing: {}", path.string(), std::strerror(errno))};
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    return trace::Error{fmt::format("{}: writing {} bytes failed: {}", path.string(), text.size(),
                                    std::strerror(errno))};
  }
  return {};
}

std::string hostAheadNote(const analyzer::IterationSummary& iterations) {
  if (!analyzer::hostRanAhead(iterations)) return {};
  return fmt::format("the host ran ahead of the GPU: its step ranges average {}",
                     formatDuration(iterations.steady_host_mean_ns));
}

std::string formatDuration(std::int64_t ns) {
  const double value = static_cast<double>(ns);
  const std::int64_t magnitude = std::llabs(ns);
  if (magnitude < 1'000) return fmt::format("{} ns", ns);
  if (magnitude < 1'000'000) return fmt::format("{:.1f} us", value / 1e3);
  if (magnitude < 1'000'000'000) return fmt::format("{:.2f} ms", value / 1e6);
  return fmt::format("{:.3f} s", value / 1e9);
}

std::string formatBytes(std::int64_t bytes) {
  const double value = static_cast<double>(bytes);
  const std::int64_t magnitude = std::llabs(bytes);
  if (magnitude < 1024) return fmt::format("{} B", bytes);
  if (magnitude < 1024 * 1024) return fmt::format("{:.1f} KiB", value / 1024.0);
  if (magnitude < 1024 * 1024 * 1024) return fmt::format("{:.1f} MiB", value / (1024.0 * 1024.0));
  return fmt::format("{:.2f} GiB", value / (1024.0 * 1024.0 * 1024.0));
}

std::string formatPercent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return fmt::format("{:.1f}%", fraction * 100.0);
}

std::string formatSpeedup(double speedup) {
  if (!std::isfinite(speedup)) return "unbounded";
  return fmt::format("{:.2f}x", speedup);
}

std::string formatFlops(double flops) {
  if (!std::isfinite(flops)) return "n/a";
  const double magnitude = std::fabs(flops);
  if (magnitude >= 1e15) return fmt::format("{:.2f} PFLOP", flops / 1e15);
  if (magnitude >= 1e12) return fmt::format("{:.2f} TFLOP", flops / 1e12);
  if (magnitude >= 1e9) return fmt::format("{:.2f} GFLOP", flops / 1e9);
  if (magnitude >= 1e6) return fmt::format("{:.2f} MFLOP", flops / 1e6);
  return fmt::format("{:.0f} FLOP", flops);
}

std::string formatTflops(double tflops) {
  if (!std::isfinite(tflops)) return "n/a";
  return fmt::format("{:.3g} TFLOP/s", tflops);
}

trace::Status createReportDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return trace::Error{fmt::format("{}: cannot create the report directory: {}", dir.string(), error.message())};
  }
  if (!std::filesystem::is_directory(dir, error)) {
    return trace::Error{fmt::format("{}: exists and is not a directory; expected a directory for the report",
                                    dir.string())};
  }
  return {};
}

}  // namespace ampscope::reports
