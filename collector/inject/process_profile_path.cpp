#include "collector/inject/process_profile_path.h"

#include <charconv>
#include <filesystem>

namespace ampscope::collector {

namespace fs = std::filesystem;

std::string processProfilePath(std::string_view output, long long pid) {
  const fs::path path(output);
  const std::string stem = path.stem().string();
  const std::string extension = path.extension().string();
  return (path.parent_path() / (stem + "." + std::to_string(pid) + extension)).string();
}

std::optional<long long> processOfProfilePath(std::string_view candidate_name, std::string_view output) {
  const fs::path path(output);
  const std::string prefix = path.stem().string() + ".";
  const std::string extension = path.extension().string();
  if (candidate_name.size() <= prefix.size() + extension.size()) return std::nullopt;
  if (candidate_name.substr(0, prefix.size()) != prefix) return std::nullopt;
  if (candidate_name.substr(candidate_name.size() - extension.size()) != extension) return std::nullopt;
  const std::string_view digits = candidate_name.substr(prefix.size(), candidate_name.size() - prefix.size() - extension.size());
  long long pid = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (error != std::errc{} || end != digits.data() + digits.size() || pid <= 0) return std::nullopt;
  return pid;
}

}  // namespace ampscope::collector
