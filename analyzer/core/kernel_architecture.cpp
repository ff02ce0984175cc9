#include "analyzer/core/kernel_architecture.h"

#include <cctype>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Compute capabilities the table knows of, Volta on: a number outside them is not a build target
// (a tile size, a version).
bool knownCapability(int major, int minor) {
  switch (major * 10 + minor) {
    case 70: case 72: case 75: case 80: case 86: case 87: case 89: case 90:
    case 100: case 101: case 103: case 110: case 120: case 121: return true;
    default: return false;
  }
}

// "80" -> 8.0, "100" -> 10.0, "103" -> 10.3: two or three digits at `at`, not followed by
// another digit.
std::optional<std::pair<int, int>> capabilityAt(std::string_view name, std::size_t at) {
  std::size_t end = at;
  while (end < name.size() && isDigit(name[end])) ++end;
  const std::size_t digits = end - at;
  if (digits < 2 || digits > 3) return std::nullopt;
  int number = 0;
  for (std::size_t i = at; i < end; ++i) number = number * 10 + (name[i] - '0');
  const int major = number / 10;
  const int minor = number % 10;
  if (!knownCapability(major, minor)) return std::nullopt;
  return std::pair{major, minor};
}

bool newer(const std::pair<int, int>& a, const std::optional<std::pair<int, int>>& b) {
  return !b || a > *b;
}

// Library kernel families named after the architecture they were built for.
struct ArchitecturePrefix {
  std::string_view prefix;
  int major;
  int minor;
};
constexpr ArchitecturePrefix kPrefixes[] = {
    {"volta_", 7, 0},   // cuBLAS/cuDNN volta_sgemm_..., volta_h884gemm_...
    {"turing_", 7, 5},  // turing_fp16_s1688gemm_...
    {"ampere_", 8, 0},  // ampere_sgemm_..., ampere_bf16_s16816gemm_...
};

}  // namespace

std::optional<std::pair<int, int>> capabilityInKernelName(std::string_view name) {
  std::optional<std::pair<int, int>> best;
  const auto consider = [&](std::optional<std::pair<int, int>> found) {
    if (found && newer(*found, best)) best = found;
  };
  for (std::size_t i = 0; i + 2 < name.size(); ++i) {
    const bool word_start = i == 0 || !isAlnum(name[i - 1]);
    const std::string_view two = name.substr(i, 2);
    // "sm80_", "_sm90a", "SM80_16x8x16" (CuTe MMA atoms) at a word start; "Sm90" (CUTLASS
    // arch tags, FlashAttnFwdSm90, fmhaSm100a) anywhere.
    if (((two == "sm" || two == "SM") && word_start) || two == "Sm") {
      std::size_t digits = i + 2;
      if (digits < name.size() && name[digits] == '_') ++digits;
      consider(capabilityAt(name, digits));
    }
    // "cutlass_80_tensorop_...", "cutlass_75_wmma_...": CUTLASS 2 library names.
    if (name.substr(i).starts_with("cutlass_") && word_start) consider(capabilityAt(name, i + 8));
    if (word_start) {
      for (const ArchitecturePrefix& p : kPrefixes) {
        if (name.substr(i).starts_with(p.prefix)) consider(std::pair{p.major, p.minor});
      }
    }
  }
  return best;
}

std::optional<KernelArchitectureProof> architectureFromKernelNames(const trace::Trace& trace) {
  std::unordered_set<std::uint32_t> host_devices;
  for (const trace::Device& device : trace.devices) {
    if (device.kind == trace::DeviceKind::kCpu) host_devices.insert(device.id);
  }
  std::vector<bool> seen(trace.strings.size(), false);
  std::optional<std::pair<int, int>> best;
  trace::StringId best_name = trace::StringTable::kEmpty;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (host_devices.contains(kernel.device)) continue;
    const auto id = static_cast<std::size_t>(kernel.name);
    if (id < seen.size()) {
      if (seen[id]) continue;
      seen[id] = true;
    }
    const std::optional<std::pair<int, int>> found = capabilityInKernelName(trace.str(kernel.name));
    if (found && newer(*found, best)) {
      best = found;
      best_name = kernel.name;
    }
  }
  if (!best) return std::nullopt;
  return KernelArchitectureProof{best->first, best->second, std::string(trace.str(best_name))};
}

}  // namespace ampscope::analyzer
