#include "analyzer/kernel_verdicts.h"

#include <unordered_map>

#include "analyzer/rule_ids.h"

namespace ampscope::analyzer {

namespace {

// The trainer's dtype names as its host op names spell them; longer names first, since
// "bfloat16" contains "float16".
MathPrecision precisionFromHostName(std::string_view name) {
  const auto has = [&](std::string_view token) {
    for (std::size_t at = name.find(token); at != std::string_view::npos; at = name.find(token, at + 1)) {
      const bool starts = at == 0 || name[at - 1] == ' ';
      const std::size_t end = at + token.size();
      if (starts && (end == name.size() || name[end] == ' ')) return true;
    }
    return false;
  };
  if (has("bfloat16")) return MathPrecision::kBf16;
  if (has("float16")) return MathPrecision::kFp16;
  if (has("float32") || has("float")) return MathPrecision::kFp32;
  return MathPrecision::kUnknown;
}

}  // namespace

TensorCoreVerdict hostVerdict(std::string_view kernel_name) {
  TensorCoreVerdict verdict;
  verdict.host = true;
  verdict.precision = precisionFromHostName(kernel_name);
  verdict.confidence = Confidence::kHigh;  // the device says where it ran, not the name
  return verdict;
}

bool isMatrixKernel(const TensorCoreVerdict& verdict, bool under_eligible_op) {
  if (verdict.host) return under_eligible_op;
  return verdict.tensor_core == TensorCoreUse::kYes || verdict.precision == MathPrecision::kFp32Simt ||
         verdict.rule_id == rule_ids::kUnknownMatrixKernel;
}

bool recordedOnCpu(const trace::Trace& trace) {
  std::unordered_map<std::uint32_t, trace::DeviceKind> kinds;
  for (const trace::Device& device : trace.devices) kinds.emplace(device.id, device.kind);
  const auto onCpu = [&](std::uint32_t device) {
    const auto found = kinds.find(device);
    return found != kinds.end() && found->second == trace::DeviceKind::kCpu;
  };
  if (trace.kernels.empty()) {
    if (trace.devices.empty()) return false;
    for (const trace::Device& device : trace.devices) {
      if (device.kind != trace::DeviceKind::kCpu) return false;
    }
    return true;
  }
  for (const trace::Kernel& kernel : trace.kernels) {
    if (!onCpu(kernel.device)) return false;
  }
  return true;
}

KernelVerdicts::KernelVerdicts(const trace::Trace& trace, const TensorCoreEvidence* evidence,
                               const TensorCoreRules& rules)
    : trace_(trace), rules_(rules), evidence_(evidence) {
  if (!evidence_) {
    own_evidence_.device = verdictDevice(trace, chooseRecordedDevice(trace, ""));
    evidence_ = &own_evidence_;
  }
  for (const trace::Device& device : trace.devices) {
    if (device.kind == trace::DeviceKind::kCpu) cpu_devices_.insert(device.id);
  }
}

const TensorCoreVerdict& KernelVerdicts::of(const trace::Kernel& kernel) {
  const bool host = onHost(kernel);
  auto& cache = host ? host_verdicts_ : gpu_verdicts_;
  auto [cached, fresh] = cache.try_emplace(kernel.name);
  if (fresh) {
    const std::string_view name = trace_.str(kernel.name);
    if (host) {
      cached->second = hostVerdict(name);
    } else if (const auto proven = evidence_->by_rate.find(kernel.name); proven != evidence_->by_rate.end()) {
      cached->second = proven->second;
    } else {
      cached->second = withNameEvidence(rules_.classify(name), name, evidence_->device);
    }
  }
  return cached->second;
}

}  // namespace ampscope::analyzer
