#pragma once
// A summary with hardware counters filled by hand, as the counter analysis (analyzer/counters/)
// fills them, for the views' tests: an A100 run of three kernels under one layer,
//   ampere_sgemm_128x64_tn            4 ms  the name says CUDA cores (sgemm, high); the counters
//                                           measured the tensor pipe 85% busy: a disagreement
//   ampere_s16816gemm_fp16_128x128   2 ms  Tensor Cores by name, measured 70% busy
//   elementwise_kernel               1 ms  not measured (blank in every view)
// per-kernel ranges of the first two, one sampled series of the tensor pipe's share on GPU 0, and
// one not-understood range. The same summary with `counters` left empty is a run without them.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::test {

inline constexpr const char* kCountedSimt = "ampere_sgemm_128x64_tn";
inline constexpr const char* kCountedTensorCore = "ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn";
inline constexpr const char* kUncounted = "elementwise_kernel";
inline constexpr const char* kTensorPipeMetric = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kCyclesMetric = "sm__cycles_elapsed.avg";
inline constexpr const char* kSeriesMetric = "Tensor Active [Throughput %]";

inline analyzer::TraceSummary summaryWithoutCounters() {
  using analyzer::TensorCoreUse;
  analyzer::TraceSummary s;
  s.format = "kineto";
  s.format_detail = "PyTorch profiler (Kineto) trace";
  s.devices.push_back({0, "NVIDIA A100-SXM4-40GB", "8.0", 108, 3, 7'000'000});
  s.gpu_kernel_time_ns = 7'000'000;
  s.gpu_busy_ns = 7'000'000;
  s.trace_span_ns = 8'000'000;

  analyzer::TensorCoreVerdict simt;
  simt.precision = analyzer::MathPrecision::kFp32Simt;
  simt.confidence = analyzer::Confidence::kHigh;
  simt.rule_id = "sgemm";
  analyzer::TensorCoreVerdict tc;
  tc.tensor_core = TensorCoreUse::kYes;
  tc.precision = analyzer::MathPrecision::kFp16;
  tc.confidence = analyzer::Confidence::kHigh;
  tc.rule_id = "s16816-fp16";
  analyzer::TensorCoreVerdict other;
  other.rule_id = "not-matrix";

  analyzer::GroupTime layer;
  layer.name = "fc1";
  layer.phase = "forward";
  layer.op_calls = 3;
  layer.kernels = 3;
  layer.gpu_time_ns = 7'000'000;
  layer.tensor_core_time_ns = 2'000'000;
  layer.kernel_times = {{kCountedSimt, 1, 4'000'000, simt}, {kCountedTensorCore, 1, 2'000'000, tc},
                        {kUncounted, 1, 1'000'000, other}};
  s.operators.push_back(layer);
  s.layers.push_back(layer);
  for (const analyzer::KernelTime& k : layer.kernel_times) {
    s.kernels.push_back({k.name, "", k.verdict, "evidence", k.calls, k.time_ns,
                         {{layer.name, trace::Phase::kForward, k.calls, k.time_ns}}, layer.name, 1, {}, std::nullopt, 0});
  }
  analyzer::LayerRow row;
  row.layer = "fc1";
  row.pass = trace::Phase::kForward;
  row.ops = {"aten::linear"};
  row.calls = 1;
  row.kernels = 3;
  row.time_ns = 7'000'000;
  row.tensor_core_time_ns = 2'000'000;
  row.eligible = true;
  row.precision = analyzer::MathPrecision::kFp32Simt;
  row.state = analyzer::LayerState::kEligibleNotTensorCore;
  s.layer_table.rows.push_back(row);
  s.tensor_cores.time_ns = 2'000'000;
  s.tensor_cores.fraction = 2.0 / 7.0;
  s.tensor_cores.by_precision = {{"FP16", 2'000'000}};
  s.tensor_cores.high_confidence_ns = 2'000'000;
  return s;
}

inline analyzer::TraceSummary summaryWithCounters() {
  analyzer::TraceSummary s = summaryWithoutCounters();
  analyzer::CounterAnalysis& c = s.counters;
  analyzer::KernelCounterRow simt{.kernel = kCountedSimt,
                                  .ranges = 2,
                                  .matched = 2,
                                  .totals = {{kCyclesMetric, 2.0e6, 2}, {kTensorPipeMetric, 170.0, 2}},
                                  .time_ns = 4'000'000,
                                  .tensor_active = 0.85,
                                  .measured_ns = 4'000'000,
                                  .source = analyzer::MeasurementSource::kPerKernel,
                                  .basis = kTensorPipeMetric,
                                  .cuda_core_ops = std::nullopt};
  analyzer::KernelCounterRow tc{.kernel = kCountedTensorCore,
                                .ranges = 1,
                                .matched = 1,
                                .totals = {{kTensorPipeMetric, 70.0, 1}},
                                .time_ns = 2'000'000,
                                .tensor_active = 0.70,
                                .measured_ns = 2'000'000,
                                .source = analyzer::MeasurementSource::kPerKernel,
                                .basis = kTensorPipeMetric,
                                .cuda_core_ops = analyzer::CudaCoreOps{.fp16 = 0.0, .fp32 = 1024.0, .fp64 = 0.0}};
  c.kernels = {simt, tc};
  analyzer::MetricSeries series;
  series.device = 0;
  series.metric = kSeriesMetric;
  series.share = true;
  // Two samples back to back, a gap, and a third.
  series.points = {{1'000'000, 2'000'000, 0.5}, {2'000'000, 3'000'000, 0.75}, {5'000'000, 6'000'000, 0.25}};
  c.series.push_back(series);
  c.tensor_cores = {.kernel_time_ns = 7'000'000,
                    .covered_ns = 6'000'000,
                    .active_share = 0.8,
                    .tensor_core_ns = 6'000'000,
                    .idle_ns = 0,
                    .metrics = {kTensorPipeMetric}};
  analyzer::VerdictDisagreement d;
  d.kernel = kCountedSimt;
  d.by_name = s.kernels[0].verdict;
  d.measured = analyzer::TensorCoreUse::kYes;
  d.tensor_active = 0.85;
  d.time_ns = 4'000'000;
  d.basis = kTensorPipeMetric;
  c.disagreements.push_back(d);
  c.tensor_active_by_kernel = {0.85f, 0.70f, std::numeric_limits<float>::quiet_NaN()};
  c.not_understood = {{"profiler range without a kernel name", 1}};
  c.first_place = {{"profiler range without a kernel name", "traceEvents element at byte offset 42"}};
  s.kernels[0].measured_tensor_active = 0.85;
  s.kernels[0].measured_tensor_ns = 4'000'000;
  s.kernels[1].measured_tensor_active = 0.70;
  s.kernels[1].measured_tensor_ns = 2'000'000;
  s.layer_table.rows[0].measured_tensor_active = 0.8;
  s.layer_table.rows[0].measured_tensor_ns = 6'000'000;
  s.tensor_cores.measured_ns = 2'000'000;
  s.tensor_cores.high_confidence_ns = 0;
  return s;
}

}  // namespace ampscope::test
