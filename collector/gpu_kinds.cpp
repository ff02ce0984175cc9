#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "collector/gpu_recording.h"
#include "collector/inject/injected_recording.h"

namespace ampscope::collector {

namespace {

struct KindName {
  std::string_view name;
  bool GpuKinds::*field;
};
constexpr KindName kKinds[] = {
    {"kernel", &GpuKinds::kernel}, {"memcpy", &GpuKinds::memcpy}, {"memset", &GpuKinds::memset},
    {"runtime", &GpuKinds::runtime}, {"driver", &GpuKinds::driver}, {"sync", &GpuKinds::sync},
    {"memory", &GpuKinds::memory},
    {"nvtx", &GpuKinds::nvtx},
};

}  // namespace

trace::Result<GpuKinds> parseGpuKinds(std::string_view list) {
  GpuKinds kinds;
  for (const KindName& kind : kKinds) kinds.*kind.field = false;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view word = list.substr(begin, comma - begin);
    begin = comma + 1;
    if (word.empty()) continue;
    if (word == "all") {
      for (const KindName& kind : kKinds) kinds.*kind.field = true;
      continue;
    }
    bool known = false;
    for (const KindName& kind : kKinds) {
      if (kind.name == word) kinds.*kind.field = known = true;
    }
    if (!known) {
      std::vector<std::string_view> names;
      for (const KindName& kind : kKinds) names.push_back(kind.name);
      return trace::Error{fmt::format("--kinds: unknown kind '{}' (expected a comma-separated list of {} or all)",
                                      word, fmt::join(names, ", "))};
    }
  }
  return kinds;
}

std::string formatGpuKinds(const GpuKinds& kinds) {
  std::vector<std::string_view> names;
  for (const KindName& kind : kKinds) {
    if (kinds.*kind.field) names.push_back(kind.name);
  }
  return fmt::format("{}", fmt::join(names, ","));
}

GpuKinds gpuKindsFromEnvironment() {
  const char* list = std::getenv(kKindsVariable);
  if (list == nullptr) return {};
  auto parsed = parseGpuKinds(list);
  return parsed ? *parsed : GpuKinds{};
}

}  // namespace ampscope::collector
