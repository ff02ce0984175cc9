#include "analyzer/model/model_flops.h"

#include <algorithm>
#include <vector>

namespace ampscope::analyzer {

void measureModelFlops(OpPerformance& ops, const trace::Trace& trace, const IterationSummary& iterations,
                       const KernelAttribution& kernels, bool recorded_on_cpu) {
  std::vector<bool> counted(trace.ranges.size(), false);  // by work op range
  double flops = 0;
  const bool steps = iterations.steadyCount() > 0 && iterations.steady_mean_ns > 0;
  std::int64_t first = 0;
  std::int64_t last = 0;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    const KernelOwner& owner = kernels.kernels[i];
    if (owner.op_row < 0) continue;
    if (steps && !owner.steady) continue;
    first = first == 0 ? kernel.start_ns : std::min(first, kernel.start_ns);
    last = std::max(last, kernel.end_ns);
    const OpRow& row = ops.rows[static_cast<std::size_t>(owner.op_row)];
    if (!row.work.flops || owner.work_op == trace::kNone) continue;
    // One call's FLOPs per op range, however many kernels it launched.
    if (!counted[static_cast<std::size_t>(owner.work_op)]) {
      counted[static_cast<std::size_t>(owner.work_op)] = true;
      flops += *row.work.flops;
    }
  }
  const double window_ns = steps ? static_cast<double>(iterations.steady_mean_ns) * static_cast<double>(iterations.steadyCount())
                                 : static_cast<double>(last - first);
  const double windows = steps ? static_cast<double>(iterations.steadyCount()) : 1.0;
  ops.flops_per_step = flops / windows;
  ops.per_step = steps;
  ops.window_ns = static_cast<std::int64_t>(window_ns / windows);
  const DeviceSpec* device = ops.device.spec.get();
  if (device && !recorded_on_cpu && window_ns > 0 && flops > 0) {
    ops.utilisation_precision = ampPrecision(*device);
    const double peak = peakTflops(*device, ops.utilisation_precision) * 1e12;
    if (peak > 0) ops.model_flop_utilisation = flops / (window_ns * 1e-9) / peak;
  }
}

}  // namespace ampscope::analyzer
