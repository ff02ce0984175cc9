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

std::string formatDuration(std::int64_t ns) {
  const double value = static_cast<double>(ns);
  const std::int64_t magnitude = std::llabs(ns);
  if (magnitude < 1'000) return fmt::format("{} ns", ns);
  if (magnitude < 1'000'000) return fmt::format("{:.1f} us", value / 1e3);
  if (magnitude < 1'000'000'000) return fmt::format("{:.2f} ms", value / 1e6);
  return fmt::format("{:.3f} s", value / 1e9);
}

std::string formatPercent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return fmt::format("{:.1f}%", fraction * 100.0);
}

std::string formatSpeedup(double speedup) {
  if (!std::isfinite(speedup)) return "unbounded";
  return fmt::format("{:.2f}x", speedup);
}

}  // namespace ampscope::reports
