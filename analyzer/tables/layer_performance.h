#pragma once
// The per-op model summed into the layer and kernel tables: each row's FLOPs, bytes, achieved
// rate, roofline bound and predicted AMP time on the recorded device, and (layers) its predicted
// times on the what-if device. An op's figures are apportioned to the rows its kernels ran for,
// by kernel time, so the rows add up to the op.

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/row_performance.h"
#include "analyzer/model/what_if_device.h"
#include "analyzer/tables/kernel_table.h"
#include "analyzer/tables/layer_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Apportions the op rows to groups: group_of_kernel[k] is kernel k's row (-1: none), its op row
// the per-kernel table's; `precision` and `time_ns` per group (its own kernels').
std::vector<RowPerformance> apportionOpPerformance(const trace::Trace& trace, const OpPerformance& ops,
                                                   const KernelAttribution& kernels,
                                                   const std::vector<std::int32_t>& group_of_kernel,
                                                   const std::vector<MathPrecision>& precision,
                                                   const std::vector<std::int64_t>& time_ns, bool on_cpu);

void addLayerPerformance(LayerTable& table, const trace::Trace& trace, const KernelAttribution& kernels,
                         const OpPerformance& ops, const WhatIfProjection& what_if, bool on_cpu);
void addKernelPerformance(std::vector<KernelRow>& rows, const trace::Trace& trace, const KernelAttribution& kernels,
                          const OpPerformance& ops, bool on_cpu);

}  // namespace ampscope::analyzer
