#pragma once
// The tensor pipe's measured busy share (hardware counters: analyzer/counters/) summed into the
// kernel and layer tables: per row, time-weighted over the kernels that were measured, and the
// time that covers. Rows none of whose kernels was measured keep nullopt: unknown, not zero.

#include <vector>

#include "analyzer/model/kernel_attribution.h"
#include "analyzer/tables/kernel_table.h"
#include "analyzer/tables/layer_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// `share_by_kernel`: per trace kernel, the measured share, NaN where not measured
// (CounterAnalysis::tensor_active_by_kernel); empty when the trace has no counters.
void addMeasuredTensorActivity(std::vector<KernelRow>& kernel_rows, LayerTable& layers, const trace::Trace& trace,
                               const KernelAttribution& kernels, const std::vector<float>& share_by_kernel);

}  // namespace ampscope::analyzer
