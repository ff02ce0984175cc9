#include "analyzer/tables/layer_performance.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace ampscope::analyzer {

namespace {

double kernelNs(const trace::Kernel& kernel) { return static_cast<double>(kernel.end_ns - kernel.start_ns); }

// (group, op row) -> kernel time of the op's kernels in the group.
std::map<std::pair<std::size_t, std::size_t>, double> opTimeByGroup(const trace::Trace& trace, const KernelAttribution& kernels,
                                                                    const std::vector<std::int32_t>& group_of_kernel) {
  std::map<std::pair<std::size_t, std::size_t>, double> shares;
  for (std::size_t k = 0; k < trace.kernels.size() && k < group_of_kernel.size(); ++k) {
    const std::int32_t op = kernels.kernels[k].op_row;
    if (op < 0 || group_of_kernel[k] < 0) continue;
    shares[{static_cast<std::size_t>(group_of_kernel[k]), static_cast<std::size_t>(op)}] += kernelNs(trace.kernels[k]);
  }
  return shares;
}

}  // namespace

std::vector<RowPerformance> apportionOpPerformance(const trace::Trace& trace, const OpPerformance& ops,
                                                   const KernelAttribution& kernels,
                                                   const std::vector<std::int32_t>& group_of_kernel,
                                                   const std::vector<MathPrecision>& precision,
                                                   const std::vector<std::int64_t>& time_ns, bool on_cpu) {
  std::vector<RowPerformance> out(time_ns.size());
  struct Sums {
    double known_ns = 0;
    double flops_ns = 0;
    double predicted_ns = 0;
    double projected_ns = 0;
  };
  std::vector<Sums> sums(out.size());
  for (const auto& [key, ns] : opTimeByGroup(trace, kernels, group_of_kernel)) {
    const auto [group, op_index] = key;
    const OpRow& op = ops.rows[op_index];
    RowPerformance& row = out[group];
    Sums& s = sums[group];
    const double calls = op.time_ns > 0 ? static_cast<double>(op.calls) * ns / static_cast<double>(op.time_ns) : 0.0;
    // FLOPs whose rate broke the device's peak are wrong inputs, not work.
    if (op.work.flops && !op.work_above_peak) {
      row.flops += *op.work.flops * calls;
      s.flops_ns += ns;
    }
    if (op.work.bytes) row.bytes += *op.work.bytes * calls;
    if (op.work.flops || op.work.bytes) s.known_ns += ns;
    if (op.predicted_amp_ns) {
      s.predicted_ns += ns / op.amp_speedup;
      s.projected_ns += ns;
    }
  }
  const DeviceSpec* device = on_cpu ? nullptr : ops.device.spec.get();
  for (std::size_t i = 0; i < out.size(); ++i) {
    RowPerformance& row = out[i];
    const Sums& s = sums[i];
    const double time = static_cast<double>(time_ns[i]);
    row.work_known_share = time > 0 ? std::min(1.0, s.known_ns / time) : 0.0;
    if (!device) continue;
    if (s.flops_ns > 0 && row.flops > 0) row.achieved_tflops = row.flops / (s.flops_ns * 1e-9) / 1e12;
    row.peak_tflops = peakTflops(*device, precision[i]);
    if (row.flops > 0 && row.bytes > 0) {
      const MathPrecision p = precision[i] == MathPrecision::kUnknown ? MathPrecision::kFp32Simt : precision[i];
      row.bound = roofBound(*device, p, row.flops / row.bytes);
    } else if (row.bytes > 0) {
      row.bound = RooflineBound::kMemory;
    }
    // Time no op prediction covers is taken as unchanged.
    if (s.projected_ns > 0) row.predicted_amp_ns = static_cast<std::int64_t>(s.predicted_ns + std::max(0.0, time - s.projected_ns));
  }
  return out;
}

void addLayerPerformance(LayerTable& table, const trace::Trace& trace, const KernelAttribution& kernels,
                         const OpPerformance& ops, const WhatIfProjection& what_if, bool on_cpu) {
  std::map<std::pair<std::string_view, trace::Phase>, std::int32_t> row_of;
  for (std::size_t i = 0; i < table.rows.size(); ++i) row_of[{table.rows[i].layer, table.rows[i].pass}] = static_cast<std::int32_t>(i);
  // Each origin's row, found once per origin (slot 0: no origin), not per kernel.
  std::vector<std::int32_t> row_of_origin(kernels.origins.origins.size() + 1, -1);
  for (std::size_t o = 0; o < kernels.origins.origins.size(); ++o) {
    const KernelOrigin& origin = kernels.origins.origins[o];
    if (origin.group < 0) continue;
    const auto found = row_of.find({kernels.origins.label(origin.group), origin.phase});
    if (found != row_of.end()) row_of_origin[o + 1] = found->second;
  }
  std::vector<std::int32_t> group_of_kernel(trace.kernels.size(), -1);
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    group_of_kernel[k] = row_of_origin[static_cast<std::size_t>(kernels.kernels[k].origin + 1)];
  }
  std::vector<MathPrecision> precision;
  std::vector<std::int64_t> time_ns;
  for (const LayerRow& row : table.rows) {
    precision.push_back(row.precision);
    time_ns.push_back(row.time_ns);
  }
  std::vector<RowPerformance> performance = apportionOpPerformance(trace, ops, kernels, group_of_kernel, precision, time_ns, on_cpu);
  for (std::size_t i = 0; i < table.rows.size(); ++i) table.rows[i].performance = std::move(performance[i]);

  // The what-if device's estimates, apportioned the same way.
  if (what_if.ops.empty()) return;
  std::vector<bool> any(table.rows.size(), false);
  for (const auto& [key, ns] : opTimeByGroup(trace, kernels, group_of_kernel)) {
    const auto [group, op_index] = key;
    const std::int32_t w = op_index < what_if.op_of_row.size() ? what_if.op_of_row[op_index] : -1;
    if (w < 0) continue;
    const OpRow& op = ops.rows[op_index];
    const WhatIfOp& estimate = what_if.ops[static_cast<std::size_t>(w)];
    const double fraction = op.time_ns > 0 ? ns / static_cast<double>(op.time_ns) : 0.0;
    LayerRow& layer = table.rows[group];
    any[group] = true;
    layer.what_if_fp32_ns = layer.what_if_fp32_ns.value_or(0.0) + estimate.fp32_ns.value_or(0.0) * fraction;
    layer.what_if_amp_ns = layer.what_if_amp_ns.value_or(0.0) + estimate.amp_ns.value_or(0.0) * fraction;
    if (estimate.amp_ns && estimate.amp_padded_ns) {
      layer.what_if_padding_cost_ns += std::max(0.0, *estimate.amp_ns - *estimate.amp_padded_ns) * fraction;
    }
    for (const DimensionFinding& f : estimate.misaligned) {
      const bool seen = std::any_of(layer.what_if_misaligned.begin(), layer.what_if_misaligned.end(),
                                    [&](const DimensionFinding& g) { return g.dimension == f.dimension && g.value == f.value; });
      if (!seen) layer.what_if_misaligned.push_back(f);
    }
  }
}

void addKernelPerformance(std::vector<KernelRow>& rows, const trace::Trace& trace, const KernelAttribution& kernels,
                          const OpPerformance& ops, bool on_cpu) {
  // A kernel's row is its verdict's: the table has one row per name and where it ran.
  const auto on_host = [](const TensorCoreVerdict& verdict) { return verdict.tensor_core == TensorCoreUse::kHost; };
  std::map<std::pair<std::string_view, bool>, std::int32_t> row_of;  // by name and host
  for (std::size_t i = 0; i < rows.size(); ++i) row_of[{rows[i].name, on_host(rows[i].verdict)}] = static_cast<std::int32_t>(i);
  std::vector<std::int32_t> row_of_verdict(kernels.verdicts.size(), -1);
  std::vector<std::int32_t> group_of_kernel(trace.kernels.size(), -1);
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const auto verdict = static_cast<std::size_t>(kernels.kernels[k].verdict);
    if (row_of_verdict[verdict] < 0) {
      const auto found = row_of.find({trace.str(trace.kernels[k].name), on_host(kernels.verdicts[verdict])});
      row_of_verdict[verdict] = found == row_of.end() ? -2 : found->second;
    }
    group_of_kernel[k] = std::max(-1, row_of_verdict[verdict]);
  }
  std::vector<MathPrecision> precision;
  std::vector<std::int64_t> time_ns;
  for (const KernelRow& row : rows) {
    precision.push_back(row.verdict.precision);
    time_ns.push_back(row.time_ns);
  }
  std::vector<RowPerformance> performance = apportionOpPerformance(trace, ops, kernels, group_of_kernel, precision, time_ns, on_cpu);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].performance = std::move(performance[i]);
}

}  // namespace ampscope::analyzer
