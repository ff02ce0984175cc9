#include "analyzer/model/rate_proof.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/verdicts/tensor_core_evidence.h"
#include "analyzer/verdicts/tensor_core_rules.h"

namespace ampscope::analyzer {

std::unordered_map<trace::StringId, TensorCoreVerdict> proveByRate(const trace::Trace& trace, OpPerformance& ops,
                                                                   const KernelOpRows& kernel_rows,
                                                                   KernelVerdicts& verdicts) {
  std::unordered_map<trace::StringId, TensorCoreVerdict> proven;
  const DeviceSpec* device = ops.device.spec.get();
  // Against a device the GPU is only at least (a guess from kernel names), a rate above its CUDA
  // cores proves nothing: the GPU may be newer and faster.
  if (!device || ops.device.lowerBound()) return proven;
  const double ceiling = cudaCorePeakTflops(*device);
  const double tensor_peak = tensorCorePeakTflops(*device);
  // A row qualifies when its rate is out of the CUDA cores' reach and every matrix kernel in it is
  // unknown: then the unknown kernels did the math (the rate over all its time is a lower bound on
  // theirs), not a kernel already known to be on Tensor Cores or on CUDA cores.
  std::vector<bool> decided_matrix(ops.rows.size(), false);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const std::int32_t r = kernel_rows.row[i];
    if (r < 0 || verdicts.onHost(trace.kernels[i])) continue;
    const TensorCoreVerdict& v = verdicts.of(trace.kernels[i]);
    if (v.tensor_core != TensorCoreUse::kUnknown && isMatrixKernel(v, false)) decided_matrix[static_cast<std::size_t>(r)] = true;
  }
  struct Best {
    double rate = 0;
    std::size_t row = 0;
  };
  std::unordered_map<trace::StringId, Best> best;  // per unknown kernel name: its fastest qualifying op
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    const std::int32_t r = kernel_rows.row[i];
    if (r < 0 || verdicts.onHost(kernel) || verdicts.of(kernel).tensor_core != TensorCoreUse::kUnknown) continue;
    const auto row = static_cast<std::size_t>(r);
    const std::optional<double> rate = ops.rows[row].achieved_tflops;
    if (decided_matrix[row] || !rate || *rate <= ceiling || *rate > tensor_peak) continue;
    Best& b = best[kernel.name];
    if (*rate > b.rate) b = {*rate, row};
  }
  for (const auto& [name, b] : best) {
    TensorCoreVerdict verdict;
    verdict.tensor_core = TensorCoreUse::kYes;
    verdict.confidence = Confidence::kHigh;
    verdict.rule_id = std::string(rule_ids::kInferredFromRate);
    verdict.alignment = alignmentFromName(trace.str(name));
    verdict.evidence = fmt::format("achieved {:.1f} TFLOP/s > CUDA-core peak {:.1f} (4 x the {}'s FP32 {:.1f}) in {}; "
                                   "precision unknown", b.rate, ceiling, device->name, device->fp32_tflops,
                                   ops.rows[b.row].op);
    proven.emplace(name, std::move(verdict));
  }
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const std::int32_t r = kernel_rows.row[i];
    if (r < 0 || !proven.contains(trace.kernels[i].name) || verdicts.onHost(trace.kernels[i])) continue;
    ops.rows[static_cast<std::size_t>(r)].tensor_core_time_ns += trace.kernels[i].end_ns - trace.kernels[i].start_ns;
  }
  return proven;
}

}  // namespace ampscope::analyzer
