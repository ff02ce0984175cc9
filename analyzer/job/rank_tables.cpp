#include "analyzer/job/rank_tables.h"

#include <cmath>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

namespace {

double finiteOr(double value, double fallback) { return std::isfinite(value) ? value : fallback; }

RowPerformance finitePerformance(RowPerformance p) {
  p.flops = finiteOr(p.flops, 0);
  p.bytes = finiteOr(p.bytes, 0);
  p.work_known_share = finiteOr(p.work_known_share, 0);
  p.achieved_tflops = finiteFigure(p.achieved_tflops);
  p.peak_tflops = finiteOr(p.peak_tflops, 0);
  return p;
}

}  // namespace

std::optional<double> finiteFigure(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? value : std::nullopt;
}

std::vector<KernelLine> kernelLines(const TraceSummary& summary) {
  std::vector<KernelLine> out;
  out.reserve(summary.kernels.size());
  for (const KernelRow& row : summary.kernels) {
    out.push_back({.name = row.name,
                   .calls = row.calls,
                   .time_ns = row.time_ns,
                   .tensor_core = row.verdict.tensor_core,
                   .precision = row.verdict.precision,
                   .rule = row.verdict.rule_id,
                   .confidence = row.verdict.confidence,
                   .alignment = row.verdict.alignment,
                   .performance = finitePerformance(row.performance),
                   .measured_tensor_active = finiteFigure(row.measured_tensor_active),
                   .measured_tensor_ns = row.measured_tensor_ns});
  }
  return out;
}

std::vector<LayerLine> layerLines(const TraceSummary& summary) {
  std::vector<LayerLine> out;
  out.reserve(summary.layer_table.rows.size());
  for (const LayerRow& row : summary.layer_table.rows) {
    LayerLine line{.layer = row.layer,
                   .pass = row.pass,
                   .ops = row.ops,
                   .calls = row.calls,
                   .time_ns = row.time_ns,
                   .tensor_core_time_ns = row.tensor_core_time_ns,
                   .eligible = row.eligible,
                   .precision = row.precision,
                   .shapes = row.shapes,
                   .violations = {},
                   .state = row.state,
                   .performance = finitePerformance(row.performance),
                   .what_if_fp32_ns = finiteFigure(row.what_if_fp32_ns),
                   .what_if_amp_ns = finiteFigure(row.what_if_amp_ns),
                   .what_if_padding_cost_ns = finiteOr(row.what_if_padding_cost_ns, 0),
                   .measured_tensor_active = finiteFigure(row.measured_tensor_active),
                   .measured_tensor_ns = row.measured_tensor_ns};
    for (std::size_t check : row.misaligned_checks) {
      const ShapeCheck& c = summary.shape_checks[check];
      line.violations.push_back({.misaligned = c.misaligned, .required_multiple = c.required_multiple});
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<OpLine> opLines(const TraceSummary& summary) {
  std::vector<OpLine> out;
  out.reserve(summary.op_performance.rows.size());
  for (const OpRow& row : summary.op_performance.rows) {
    const OpWork& w = row.work;
    OpLine line{.op = row.op,
                .shapes = row.shapes,
                .arguments = row.arguments,
                .layer = row.layer,
                .pass = row.pass,
                .op_class = row.op_class,
                .calls = row.calls,
                .kernels = row.kernels,
                .time_ns = row.time_ns,
                .precision = row.precision,
                .flops_per_call = finiteFigure(w.flops),
                .bytes_per_call = finiteFigure(w.bytes),
                .work_basis = w.basis,
                .work_note = w.note,
                .gemm = std::nullopt,
                .achieved_tflops = finiteFigure(row.achieved_tflops),
                .achieved_gbs = finiteFigure(row.achieved_gbs),
                .peak_tflops = finiteOr(row.peak_tflops, 0),
                .intensity = finiteFigure(row.intensity),
                .bound = row.bound,
                .rate_note = row.rate_note,
                .amp = row.amp,
                .predicted_amp_ns = row.predicted_amp_ns,
                .amp_speedup = finiteOr(row.amp_speedup, 1.0),
                .tf32_speedup = finiteOr(row.tf32_speedup, 1.0),
                .amp_note = row.amp_note};
    if (w.gemm) line.gemm = GemmLine{.m = w.gemm->m, .n = w.gemm->n, .k = w.gemm->k, .batch = w.gemm->batch};
    out.push_back(std::move(line));
  }
  return out;
}

RankTables rankTablesOf(const TraceSummary& summary) {
  return {.recorded_on_cpu = summary.recorded_on_cpu,
          .layers_are_operators = summary.layer_table.groups_operators,
          .kernels = kernelLines(summary),
          .layers = layerLines(summary),
          .ops = opLines(summary)};
}

}  // namespace ampscope::analyzer
