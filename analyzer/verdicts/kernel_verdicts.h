#pragma once
// The Tensor Core verdict of each kernel of one trace, decided once per name and kind of device:
// GPU kernels by the name rules (tensor_core_rules.h), and where those leave a matrix kernel
// unknown, by the evidence of tensor_core_evidence.h (its element type on this device, its rate);
// work on a CPU device (the trainer's CPU
// backend records its ops as host activity) gets a host verdict, because asking whether a CPU op
// used Tensor Cores would report "not on Tensor Cores" for every op of a run that had no GPU.

#include <deque>
#include <string_view>
#include <vector>

#include "analyzer/core/memo_by_id.h"
#include "analyzer/verdicts/tensor_core_evidence.h"
#include "analyzer/verdicts/tensor_core_rules.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// tensor_core = kHost; precision from the dtype the name carries ("cpu gemm float16
// 64x100x784 NT" -> FP16, "float32" -> FP32), unknown when it names none.
TensorCoreVerdict hostVerdict(std::string_view kernel_name);

// Does this kernel do an op's matrix math? The one test the shape checks, the Amdahl split and
// the layer table share: Tensor Core kernels, FP32 GEMMs on CUDA cores, GEMM-like kernels of a
// family the rules do not know, and, on the host, the work of a Tensor-Core-eligible op.
bool isMatrixKernel(const TensorCoreVerdict& verdict, bool under_eligible_op);

// True when the trace's work ran on the host CPU: every device that ran kernels is a CPU device
// (or, with no kernels, every device listed is one, and there is at least one).
bool recordedOnCpu(const trace::Trace& trace);

class KernelVerdicts {
 public:
  // `evidence`: the analysis' device and the verdicts proven by rate (trace_summary.cpp). Without
  // it, the device is the one the trace records and no rate evidence applies. Must outlive this.
  explicit KernelVerdicts(const trace::Trace& trace, const TensorCoreEvidence* evidence = nullptr,
                          const TensorCoreRules& rules = TensorCoreRules::builtin());
  KernelVerdicts(const KernelVerdicts&) = delete;  // evidence_ may point into this object
  KernelVerdicts& operator=(const KernelVerdicts&) = delete;

  // Valid while this object lives.
  const TensorCoreVerdict& of(const trace::Kernel& kernel) { return verdicts_[static_cast<std::size_t>(indexOf(kernel))]; }
  bool onHost(const trace::Kernel& kernel) const;
  // The kernel's verdict as an index into every verdict decided so far (0, 1, ... as decided):
  // what the per-kernel table keeps (model/kernel_attribution.h).
  std::int32_t indexOf(const trace::Kernel& kernel);
  const std::deque<TensorCoreVerdict>& decided() const { return verdicts_; }

 private:
  TensorCoreVerdict decide(trace::StringId name, bool host) const;

  const trace::Trace& trace_;
  const TensorCoreRules& rules_;
  TensorCoreEvidence own_evidence_;  // when none is given
  const TensorCoreEvidence* evidence_;
  std::vector<std::uint32_t> cpu_devices_;  // a trace lists a handful of devices
  // Each stage asks once per kernel, and a run launches millions of kernels with a few hundred
  // names: the verdicts are found by name id (index into verdicts_). A deque keeps the verdicts
  // where they are.
  IndexById gpu_verdict_of_name_;
  IndexById host_verdict_of_name_;
  std::deque<TensorCoreVerdict> verdicts_;
};

}  // namespace ampscope::analyzer
