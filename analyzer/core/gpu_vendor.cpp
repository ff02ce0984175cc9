#include "analyzer/core/gpu_vendor.h"

#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

bool namedByAmd(std::string_view name) {
  return name.starts_with("AMD ") || name.find("Radeon") != std::string_view::npos ||
         name.find("Instinct") != std::string_view::npos;
}

}  // namespace

std::optional<AmdGpu> amdGpuOf(const trace::Trace& trace) {
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu) continue;
    const std::string_view name = trace.str(device.name);
    if (namedByAmd(name)) return AmdGpu{std::string(name), fmt::format("the device is named \"{}\"", name)};
  }
  // A run launches millions of calls with a few dozen names: each name is looked at once.
  std::vector<bool> seen(trace.strings.size(), false);
  for (const trace::LaunchCall& call : trace.launches) {
    if (call.name >= seen.size() || seen[call.name]) continue;
    seen[call.name] = true;
    const std::string_view name = trace.str(call.name);
    if (name.starts_with("hip") && name.size() > 3 && name[3] >= 'A' && name[3] <= 'Z') {
      std::string device_name;
      for (const trace::Device& device : trace.devices) {
        if (device.kind == trace::DeviceKind::kGpu && !trace.str(device.name).empty()) {
          device_name = std::string(trace.str(device.name));
          break;
        }
      }
      return AmdGpu{device_name, fmt::format("HIP API calls ({})", name)};
    }
  }
  return std::nullopt;
}

std::string amdGpuText(const AmdGpu& gpu) {
  return gpu.name.empty() ? fmt::format("an AMD GPU ({})", gpu.evidence)
                          : fmt::format("an AMD GPU, {} ({})", gpu.name, gpu.evidence);
}

}  // namespace ampscope::analyzer
