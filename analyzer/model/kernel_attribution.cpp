#include "analyzer/model/kernel_attribution.h"

#include <algorithm>

#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

// The step whose host range holds time_ns: iterations come sorted by host start, so the last one
// starting at or before it is the only one that can; -1 when none does.
std::int32_t stepAt(const std::vector<Iteration>& steps, std::int64_t time_ns) {
  const auto after = std::upper_bound(steps.begin(), steps.end(), time_ns,
                                      [](std::int64_t t, const Iteration& it) { return t < it.host_start_ns; });
  if (after == steps.begin() || time_ns >= (after - 1)->host_end_ns) return -1;
  return static_cast<std::int32_t>(after - 1 - steps.begin());
}

}  // namespace

KernelAttribution attributeKernels(const trace::Trace& trace, const IterationSummary& iterations,
                                   const TensorCoreEvidence& evidence, LayerAttribution& attribution,
                                   const KernelOpRows& op_rows) {
  KernelAttribution out;
  KernelVerdicts verdicts(trace, &evidence);
  const SteadySpans steady(iterations, StepClock::kHost);
  out.kernels.resize(trace.kernels.size());
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    KernelOwner& owner = out.kernels[i];
    owner.origin = attribution.originOf(kernel.op_range);
    owner.verdict = verdicts.indexOf(kernel);
    owner.op_row = op_rows.row[i];
    owner.work_op = op_rows.work_op[i];
    // A kernel belongs to the step whose host work launched it.
    const std::int64_t asked = kernel.launch == trace::kNone
                                   ? kernel.start_ns
                                   : trace.launches[static_cast<std::size_t>(kernel.launch)].start_ns;
    owner.step = stepAt(iterations.iterations, asked);
    owner.steady = steady.contains(asked);
  }
  out.verdicts.assign(verdicts.decided().begin(), verdicts.decided().end());
  out.origins = attribution.take();
  return out;
}

}  // namespace ampscope::analyzer
