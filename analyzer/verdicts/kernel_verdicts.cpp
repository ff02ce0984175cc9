#include "analyzer/verdicts/kernel_verdicts.h"

#include <algorithm>
#include <unordered_map>

#include "analyzer/core/rule_ids.h"

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
  verdict.tensor_core = TensorCoreUse::kHost;
  verdict.precision = precisionFromHostName(kernel_name);
  verdict.confidence = Confidence::kHigh;  // the device says where it ran, not the name
  return verdict;
}

bool isMatrixKernel(const TensorCoreVerdict& verdict, bool under_eligible_op) {
  if (verdict.tensor_core == TensorCoreUse::kHost) return under_eligible_op;
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
    if (device.kind == trace::DeviceKind::kCpu) cpu_devices_.push_back(device.id);
  }
}

bool KernelVerdicts::onHost(const trace::Kernel& kernel) const {
  return std::find(cpu_devices_.begin(), cpu_devices_.end(), kernel.device) != cpu_devices_.end();
}

std::int32_t KernelVerdicts::indexOf(const trace::Kernel& kernel) {
  const bool host = onHost(kernel);
  IndexById& verdict_of_name = host ? host_verdict_of_name_ : gpu_verdict_of_name_;
  return verdict_of_name.get(kernel.name, [&] {
    verdicts_.push_back(decide(kernel.name, host));
    return static_cast<std::int32_t>(verdicts_.size() - 1);
  });
}

TensorCoreVerdict KernelVerdicts::decide(trace::StringId name_id, bool host) const {
  const std::string_view name = trace_.str(name_id);
  if (host) return hostVerdict(name);
  if (evidence_->device.amd) {
    TensorCoreVerdict unknown;
    unknown.tensor_core = TensorCoreUse::kUnknown;
    unknown.rule_id = rule_ids::kAmdGpuKernel;
    unknown.evidence = "recorded on an AMD GPU: the rules describe NVIDIA kernels, and no rule tells whether AMD's matrix "
                       "cores ran it";
    return unknown;
  }
  if (const auto measured = evidence_->by_measurement.find(name_id); measured != evidence_->by_measurement.end()) {
    return measured->second;
  }
  if (const auto proven = evidence_->by_rate.find(name_id); proven != evidence_->by_rate.end()) return proven->second;
  return withNameEvidence(rules_.classify(name), name, evidence_->device);
}

}  // namespace ampscope::analyzer
