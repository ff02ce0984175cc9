#pragma once
// The run's FLOPs per steady step and its model FLOP utilisation (OpPerformance::flops_per_step,
// model_flop_utilisation): one call's FLOPs per op range whose work the model knows, over the
// kernels launched in the steady steps (the trace's window of GPU work without steps), against the
// device's dense FP16/BF16 Tensor Core peak. Read from the per-kernel table, so it runs once the
// table exists, after the model has built its rows.

#include "analyzer/correlate/iterations.h"
#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/op_performance.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

void measureModelFlops(OpPerformance& ops, const trace::Trace& trace, const IterationSummary& iterations,
                       const KernelAttribution& kernels, bool recorded_on_cpu);

}  // namespace ampscope::analyzer
