// chooseRecordedDevice (declared in device_table.h): which peaks a trace's GPU is read against,
// and why. The order, from what the trace records to what is guessed: a row its name matches;
// peaks derived from its SM count; its compute capability's row; --gpu NAME; where the trace
// records nothing of its GPU, the architecture its kernel names prove. docs/devices.md,
// "Choosing the trace's device".
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "analyzer/core/device_derivation.h"
#include "analyzer/core/device_table.h"
#include "analyzer/core/gpu_vendor.h"
#include "analyzer/core/kernel_architecture.h"

namespace ampscope::analyzer {
namespace {

std::string capabilityText(int major, int minor) { return fmt::format("{}.{}", major, minor); }

GpuFacts factsOf(const trace::Trace& trace, const trace::Device& device) {
  GpuFacts facts;
  facts.name = std::string(trace.str(device.name));
  facts.compute_major = device.compute_major;
  facts.compute_minor = device.compute_minor;
  facts.sm_count = device.sm_count;
  facts.clock_ghz = static_cast<double>(device.sm_clock_khz) / 1e6;
  facts.memory_gbs = static_cast<double>(device.memory_bandwidth_bytes_per_s) / 1e9;
  facts.total_memory_bytes = device.total_memory_bytes;
  return facts;
}

DeviceChoice derivedChoice(DerivedPeaks derived, std::string what) {
  return {std::make_shared<const DeviceSpec>(std::move(derived.spec)), DeviceBasis::kDerived,
          fmt::format("{}; derived: {}", what, derived.how)};
}

// A row the device's name matches: the row itself, or, where the device has another SM count
// than the row (an RTX 3080 12GB under the 10GB card's name), peaks derived from it.
std::optional<DeviceChoice> byName(const trace::Trace& trace, const trace::Device& device) {
  const std::string_view name = trace.str(device.name);
  const std::optional<GpuNameReading> reading = readGpuName(name);
  const DeviceSpec* named = reading ? findDevice(*reading) : nullptr;
  if (named == nullptr) return std::nullopt;
  // The device's memory picks among rows of one board where the name states no size of theirs
  // ("A100-PG509-200"; "GH200 480GB" states the superchip's LPDDR5X, not the GPU's HBM).
  const bool name_says_row = reading->memory_gb != 0 && reading->memory_gb == rowMemoryGb(*named);
  const DeviceSpec* row = name_says_row ? named : rowForDeviceMemory(named, device.total_memory_bytes);
  std::string reason = fmt::format("the trace names \"{}\"", name);
  if (row != named) reason += fmt::format(" with {} GB of memory", rowMemoryGb(*row));
  if (device.sm_count > 0 && device.sm_count != row->sm_count) {
    if (std::optional<DerivedPeaks> derived = deriveFromRow(*row, factsOf(trace, device), *reading)) {
      return derivedChoice(std::move(*derived),
                           fmt::format("{}, the {} row's GPU but with {} SMs (the row has {})", reason, row->name,
                                       device.sm_count, row->sm_count));
    }
  }
  return DeviceChoice{rowSpec(row), DeviceBasis::kTraceName, std::move(reason)};
}

// A GPU no row names: from its family's row where the name has one, else from its architecture.
std::optional<DeviceChoice> derived(const trace::Trace& trace, const trace::Device& device) {
  if (device.sm_count <= 0) return std::nullopt;
  const std::string_view name = trace.str(device.name);
  const GpuFacts facts = factsOf(trace, device);
  const std::optional<GpuNameReading> reading = readGpuName(name);
  const std::string what =
      name.empty() ? fmt::format("the trace names no GPU; its device has compute capability {} and {} SMs",
                                 capabilityText(device.compute_major, device.compute_minor), device.sm_count)
      : reading && reading->mig_memory_gb > 0 ? fmt::format("the trace names \"{}\", a MIG slice", name)
                                              : fmt::format("the trace names \"{}\", which the table lacks", name);
  if (reading) {
    if (const DeviceSpec* family = familyRow(*reading)) {
      // The family's row tells the product line's rules; its architecture must be the device's.
      const bool same_architecture = device.compute_major <= 0 || (device.compute_major == family->compute_major &&
                                                                   device.compute_minor == family->compute_minor);
      if (same_architecture) {
        if (std::optional<DerivedPeaks> peaks = deriveFromRow(*family, facts, *reading)) {
          return derivedChoice(std::move(*peaks), what);
        }
      }
    }
  }
  if (std::optional<DerivedPeaks> peaks = deriveFromArchitecture(facts, reading ? &*reading : nullptr)) {
    return derivedChoice(std::move(*peaks), what);
  }
  return std::nullopt;
}

// Nothing to derive from (no SM count): the capability's row, which the reason says stands in.
std::optional<DeviceChoice> byCapability(const trace::Trace& trace, const trace::Device& device) {
  if (device.compute_major <= 0) return std::nullopt;
  const DeviceSpec* by_capability = deviceForComputeCapability(device.compute_major, device.compute_minor);
  if (by_capability == nullptr) return std::nullopt;
  const DeviceSpec* row = rowForDeviceMemory(by_capability, device.total_memory_bytes);
  const std::string_view name = trace.str(device.name);
  const std::string capability = capabilityText(device.compute_major, device.compute_minor);
  const char* no_sms = device.sm_count > 0 ? "" : ", and no SM count to derive its peaks from";
  std::string reason = name.empty() ? fmt::format("compute capability {} (the trace names no GPU{})", capability, no_sms)
                                    : fmt::format("compute capability {} (the table has no row named \"{}\"{})",
                                                  capability, name, no_sms);
  return DeviceChoice{rowSpec(row), DeviceBasis::kComputeCapability, std::move(reason)};
}

// The trace records no GPU: the data-centre row of the newest capability its kernel names prove,
// at or below it (a proof of 10.3 reads against 10.0's B200).
std::optional<DeviceChoice> byKernelNames(const trace::Trace& trace) {
  const std::optional<KernelArchitectureProof> proof = architectureFromKernelNames(trace);
  if (!proof) return std::nullopt;
  const DeviceSpec* row = nullptr;
  for (int minor = proof->compute_minor; minor >= 0 && row == nullptr; --minor) {
    row = deviceForComputeCapability(proof->compute_major, minor);
  }
  if (row == nullptr) return std::nullopt;
  constexpr std::size_t kShownKernelChars = 48;
  std::string kernel = proof->kernel;
  if (kernel.size() > kShownKernelChars) kernel = kernel.substr(0, kShownKernelChars) + "...";
  return DeviceChoice{rowSpec(row), DeviceBasis::kKernelNames,
                      fmt::format("guessed from kernel names ({}): at least {} (compute capability {}), read "
                                  "against the {} row; name the GPU with --gpu NAME",
                                  kernel, row->architecture, capabilityText(proof->compute_major, proof->compute_minor),
                                  row->name)};
}

// What the trace says of its GPU, for a reason that has no row.
std::string whatTheTraceSays(const trace::Trace& trace, const trace::Device* first_gpu) {
  if (first_gpu == nullptr) return "the trace names no GPU";
  const std::string_view name = trace.str(first_gpu->name);
  const std::string capability =
      first_gpu->compute_major > 0
          ? fmt::format(" (compute capability {})", capabilityText(first_gpu->compute_major, first_gpu->compute_minor))
          : std::string();
  // Tensor Cores start with Volta (7.0): an older GPU has no row to derive from, and no Tensor
  // Cores for AMP's matrix math to move to.
  const std::string before_volta =
      first_gpu->compute_major > 0 && first_gpu->compute_major < 7
          ? "; a GPU before Volta (compute capability 7.0) has no Tensor Cores, so AMP's matrix math could not use them"
          : "";
  if (!name.empty()) return fmt::format("the trace's GPU \"{}\"{} is not in the table{}", name, capability, before_volta);
  if (!capability.empty()) return fmt::format("the trace's GPU{} is not in the table{}", capability, before_volta);
  return "the trace names no GPU";
}

}  // namespace

DeviceChoice chooseRecordedDevice(const trace::Trace& trace, std::string_view user_gpu) {
  // Before any NVIDIA reading: HIP's compute capability and an AMD GPU's compute units would pass
  // for an NVIDIA GPU's (an MI210 says 9.0, a Hopper's).
  if (std::optional<AmdGpu> amd = amdGpuOf(trace)) {
    return {nullptr, DeviceBasis::kAmdGpu,
            fmt::format("recorded on {}: ampscope has no peaks and no Tensor Core rules for AMD GPUs' matrix cores, so "
                        "Tensor Core figures and projections are unknown",
                        amdGpuText(*amd))};
  }
  const trace::Device* first_gpu = nullptr;
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu) continue;
    if (first_gpu == nullptr) first_gpu = &device;
    if (std::optional<DeviceChoice> choice = byName(trace, device)) return std::move(*choice);
  }
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu) continue;
    if (std::optional<DeviceChoice> choice = derived(trace, device)) return std::move(*choice);
  }
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu) continue;
    if (std::optional<DeviceChoice> choice = byCapability(trace, device)) return std::move(*choice);
  }
  const std::string trace_says = whatTheTraceSays(trace, first_gpu);
  if (!user_gpu.empty()) {
    if (const DeviceSpec* named = findDevice(user_gpu)) {
      return {rowSpec(named), DeviceBasis::kUserNamed, fmt::format("--gpu {} ({})", user_gpu, trace_says)};
    }
    return {nullptr, DeviceBasis::kNone,
            fmt::format("--gpu {} is not in the table ({}); known: {}", user_gpu, trace_says, deviceNamesList())};
  }
  // Only a trace that records nothing of its GPU is guessed at: one that names a GPU the table does
  // not know says it is not what the kernel names would make it.
  bool gpu_recorded = false;
  for (const trace::Device& device : trace.devices) {
    gpu_recorded |= device.kind == trace::DeviceKind::kGpu && (!trace.str(device.name).empty() || device.compute_major > 0);
  }
  if (!gpu_recorded) {
    if (std::optional<DeviceChoice> guess = byKernelNames(trace)) return std::move(*guess);
  }
  // The names the table knows are in `ampscope analyze --help` and docs/devices.md: the reason
  // stays one line that views can show.
  return {nullptr, DeviceBasis::kNone, fmt::format("{}: name it with --gpu NAME, e.g. --gpu H100-SXM", trace_says)};
}

}  // namespace ampscope::analyzer
