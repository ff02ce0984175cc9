// The counters stage on small traces written here: profiled ranges per kernel (matched by launch
// order, by correlation id, or not at all) and device-wide samples; the measured verdicts, which
// outrank the name, the disagreements, and the measured share the tables carry.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analyzer/core/device_table.h"
#include "analyzer/counters/measure_counters.h"
#include "analyzer/summary/trace_summary.h"
#include "imported_trace.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;
constexpr char kTensorGemm[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr char kSgemm[] = "volta_sgemm_64x64_nt";
constexpr char kElementwise[] = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)";
constexpr char kHmmaPercent[] = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr char kTensorActive[] = "Tensor Active [Throughput %]";

class CounterTrace {
 public:
  CounterTrace() {
    trace_.format = trace::TraceFormat::kKineto;
    trace::Device gpu;
    gpu.name = trace_.strings.intern("NVIDIA H100 80GB HBM3");
    gpu.compute_major = 9;
    trace_.devices.push_back(gpu);
    thread_ = trace_.threadIndex(7, 7);
  }

  // An op launching one kernel with cudaLaunchKernel at start_us; the kernel runs [start+5, end).
  CounterTrace& kernel(const std::string& name, std::int64_t start_us, std::int64_t end_us, const std::string& op = "aten::mm") {
    trace::Range range;
    range.start_ns = start_us * kUs;
    range.end_ns = (start_us + 4) * kUs;
    range.name = trace_.strings.intern(op);
    range.thread = thread_;
    trace_.ranges.push_back(range);
    trace::LaunchCall launch;
    launch.start_ns = start_us * kUs + 1;
    launch.end_ns = start_us * kUs + 3;
    launch.correlation_id = ++correlation_;
    launch.name = trace_.strings.intern("cudaLaunchKernel");
    launch.thread = thread_;
    trace_.launches.push_back(launch);
    trace::Kernel k;
    k.start_ns = (start_us + 5) * kUs;
    k.end_ns = end_us * kUs;
    k.correlation_id = correlation_;
    k.name = trace_.strings.intern(name);
    k.pid = 7;
    trace_.kernels.push_back(k);
    return *this;
  }

  // A range profiler's range with placeholder times (Kineto's CUPTI-profiler mode).
  CounterTrace& placeholderRange(const std::string& name, std::vector<std::pair<std::string, double>> values) {
    trace::KernelMetrics range;
    range.start_ns = static_cast<std::int64_t>(trace_.kernel_metrics.size()) * 1'000'000;
    range.end_ns = range.start_ns + 1'000'000;
    range.kernel_name = trace_.strings.intern(name);
    range.times_measured = false;
    range.pid = 7;
    for (const auto& [metric, value] : values) range.values.push_back({trace_.strings.intern(metric), value});
    trace_.kernel_metrics.push_back(range);
    return *this;
  }

  CounterTrace& sample(std::int64_t start_us, std::int64_t end_us, double value, const std::string& metric = kTensorActive) {
    trace_.metric_samples.push_back({start_us * kUs, end_us * kUs, 0, trace_.strings.intern(metric), value});
    return *this;
  }

  trace::Trace& correlated() {
    trace_.sortByTime();
    trace_.assignLaunchingProcesses();
    test::correlateAsImported(trace_);
    return trace_;
  }

 private:
  trace::Trace trace_;
  trace::Index thread_ = trace::kNone;
  std::uint64_t correlation_ = 0;
};

VerdictDevice hopper() {
  VerdictDevice device;
  device.architecture = GpuArchitecture::kHopper;
  device.name = "H100 SXM";
  return device;
}

trace::StringId idOf(const trace::Trace& trace, const std::string& text) {
  trace::StringId id = trace::StringTable::kEmpty;
  EXPECT_TRUE(trace.strings.find(text, id)) << text;
  return id;
}

const KernelCounterRow* rowOf(const CounterAnalysis& analysis, const std::string& kernel) {
  for (const KernelCounterRow& row : analysis.kernels) {
    if (row.kernel == kernel) return &row;
  }
  return nullptr;
}

TEST(HardwareCounters, RangesWithoutTimesPairWithKernelLaunchesInOrder) {
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100).kernel(kSgemm, 200, 300).kernel(kTensorGemm, 400, 500);
  built.placeholderRange(kTensorGemm, {{kHmmaPercent, 40.0}})
      .placeholderRange(kSgemm, {{kHmmaPercent, 0.0}})
      .placeholderRange(kTensorGemm, {{kHmmaPercent, 60.0}});
  const trace::Trace& trace = built.correlated();
  ASSERT_EQ(trace.kernel_metrics.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(trace.kernel_metrics[i].kernel, static_cast<trace::Index>(i));

  const CounterMeasurement measured = measureCounters(trace, hopper());
  const KernelCounterRow* gemm = rowOf(measured.analysis, kTensorGemm);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->ranges, 2u);
  EXPECT_EQ(gemm->matched, 2u);
  EXPECT_EQ(gemm->source, MeasurementSource::kPerKernel);
  ASSERT_TRUE(gemm->tensor_active.has_value());
  EXPECT_NEAR(*gemm->tensor_active, 0.5, 1e-9);  // both kernels last 95 us: 40% and 60% weigh alike
  ASSERT_EQ(gemm->totals.size(), 1u);
  EXPECT_DOUBLE_EQ(gemm->totals[0].total, 100.0);
  EXPECT_EQ(gemm->measured_ns, 190 * kUs);

  const trace::StringId tensor_id = idOf(trace, kTensorGemm);
  const trace::StringId sgemm_id = idOf(trace, kSgemm);
  EXPECT_EQ(measured.verdicts.at(tensor_id).tensor_core, TensorCoreUse::kYes);
  EXPECT_EQ(measured.verdicts.at(tensor_id).confidence, Confidence::kMeasured);
  EXPECT_EQ(measured.verdicts.at(tensor_id).precision, MathPrecision::kBf16);  // the name's, where they agree
  EXPECT_EQ(measured.verdicts.at(sgemm_id).tensor_core, TensorCoreUse::kNo);
  EXPECT_TRUE(measured.analysis.disagreements.empty());

  const MeasuredTensorCores& share = measured.analysis.tensor_cores;
  EXPECT_EQ(share.kernel_time_ns, 285 * kUs);
  EXPECT_EQ(share.covered_ns, 285 * kUs);
  EXPECT_EQ(share.tensor_core_ns, 190 * kUs);
  EXPECT_EQ(share.idle_ns, 95 * kUs);
  EXPECT_NEAR(share.active_share, (0.4 * 95 + 0.0 * 95 + 0.6 * 95) / 285.0, 1e-6);

  // No layer is named: the ranges go to the top-level operator that launched their kernels.
  EXPECT_TRUE(measured.analysis.groups_operators);
  ASSERT_EQ(measured.analysis.groups.size(), 1u);
  EXPECT_EQ(measured.analysis.groups[0].group, "aten::mm");
  EXPECT_EQ(measured.analysis.groups[0].ranges, 3u);
  ASSERT_TRUE(measured.analysis.groups[0].tensor_active.has_value());
  EXPECT_NEAR(*measured.analysis.groups[0].tensor_active, (0.4 + 0.0 + 0.6) / 3.0, 1e-6);
}

TEST(HardwareCounters, ANameTheCountersContradictIsADisagreementAndTheCountersWin) {
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100).kernel(kSgemm, 200, 300);
  built.placeholderRange(kTensorGemm, {{kHmmaPercent, 0.0}}).placeholderRange(kSgemm, {{kHmmaPercent, 35.0}});
  const trace::Trace& trace = built.correlated();
  const TraceSummary summary = summarizeTrace(trace, {});
  ASSERT_EQ(summary.counters.disagreements.size(), 2u);
  for (const VerdictDisagreement& d : summary.counters.disagreements) {
    if (d.kernel == kTensorGemm) {
      EXPECT_EQ(d.by_name.tensor_core, TensorCoreUse::kYes);
      EXPECT_EQ(d.measured, TensorCoreUse::kNo);
    } else {
      EXPECT_EQ(d.kernel, kSgemm);
      EXPECT_EQ(d.measured, TensorCoreUse::kYes);
      EXPECT_NEAR(d.tensor_active, 0.35, 1e-9);
    }
  }
  // The kernel table reports the measured verdict, with its share.
  for (const KernelRow& row : summary.kernels) {
    EXPECT_EQ(row.verdict.confidence, Confidence::kMeasured) << row.name;
    ASSERT_TRUE(row.measured_tensor_active.has_value()) << row.name;
    EXPECT_EQ(row.measured_tensor_ns, 95 * kUs);
    if (row.name == kSgemm) {
      EXPECT_EQ(row.verdict.tensor_core, TensorCoreUse::kYes);
      EXPECT_NEAR(*row.measured_tensor_active, 0.35, 1e-6);
    } else {
      EXPECT_EQ(row.verdict.tensor_core, TensorCoreUse::kNo);
    }
  }
  EXPECT_EQ(summary.tensor_cores.measured_ns, 95 * kUs);
  EXPECT_EQ(summary.tensor_cores.time_ns, 95 * kUs);
}

TEST(HardwareCounters, RangesThatDoNotPairWithTheLaunchesKeepTheirTotalsAndAreCounted) {
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100).kernel(kSgemm, 200, 300);
  built.placeholderRange(kTensorGemm, {{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 10.0},
                                       {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 4.0}});
  const trace::Trace& trace = built.correlated();
  EXPECT_EQ(trace.kernel_metrics[0].kernel, trace::kNone);
  EXPECT_EQ(trace.import_stats.not_understood.count(
                "profiled range without times not matched: the launches do not pair with the ranges"),
            1u);
  const CounterMeasurement measured = measureCounters(trace, hopper());
  const KernelCounterRow* gemm = rowOf(measured.analysis, kTensorGemm);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->matched, 0u);
  ASSERT_EQ(gemm->totals.size(), 2u);
  ASSERT_TRUE(gemm->cuda_core_ops.has_value());
  EXPECT_DOUBLE_EQ(gemm->cuda_core_ops->fp32, 20.0);  // 2 operations per FMA
  EXPECT_DOUBLE_EQ(gemm->cuda_core_ops->fp16, 8.0);
  // Instruction counts of CUDA cores say nothing of the tensor pipe: no measured verdict.
  EXPECT_FALSE(gemm->tensor_active.has_value());
  EXPECT_TRUE(measured.verdicts.empty());
}

TEST(HardwareCounters, SamplesAKernelFilledAloneGiveItsNameAVerdict) {
  CounterTrace built;
  // The GEMM runs [5, 400) us, the elementwise kernel [405, 800): samples of 100 us, 50% busy
  // under the GEMM, idle under the other; the sample across the gap holds both.
  built.kernel(kTensorGemm, 0, 400).kernel(kElementwise, 400, 800, "aten::add");
  for (int s = 0; s < 8; ++s) built.sample(s * 100, (s + 1) * 100, s < 4 ? 50.0 : 0.0);
  const trace::Trace& trace = built.correlated();
  const CounterMeasurement measured = measureCounters(trace, hopper());
  const trace::StringId tensor_id = idOf(trace, kTensorGemm);
  const trace::StringId add_id = idOf(trace, kElementwise);
  EXPECT_EQ(measured.verdicts.at(tensor_id).tensor_core, TensorCoreUse::kYes);
  EXPECT_EQ(measured.verdicts.at(add_id).tensor_core, TensorCoreUse::kNo);
  const KernelCounterRow* gemm = rowOf(measured.analysis, kTensorGemm);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->source, MeasurementSource::kSampled);
  EXPECT_NEAR(*gemm->tensor_active, 0.5, 1e-6);
  EXPECT_EQ(gemm->measured_ns, 395 * kUs);
  ASSERT_EQ(measured.analysis.series.size(), 1u);
  EXPECT_TRUE(measured.analysis.series[0].share);
  EXPECT_DOUBLE_EQ(measured.analysis.series[0].points[0].value, 0.5);
  EXPECT_FLOAT_EQ(measured.analysis.tensor_active_by_kernel[1], 0.0f);

  // The ranges that launched them (top-level operators here: no layer is named) carry the share.
  const TraceSummary summary = summarizeTrace(trace, {});
  ASSERT_EQ(summary.layer_table.rows.size(), 2u);
  for (const LayerRow& row : summary.layer_table.rows) {
    ASSERT_TRUE(row.measured_tensor_active.has_value()) << row.layer;
    EXPECT_NEAR(*row.measured_tensor_active, row.layer == "aten::mm" ? 0.5 : 0.0, 1e-6) << row.layer;
    EXPECT_EQ(row.measured_tensor_ns, 395 * kUs) << row.layer;
  }
}

TEST(HardwareCounters, OneStepOfAnIntegerPercentageIsIdle) {
  CounterTrace built;
  built.kernel(kElementwise, 0, 400, "aten::add");
  for (int s = 0; s < 4; ++s) built.sample(s * 100, (s + 1) * 100, 1.0);
  const trace::Trace& trace = built.correlated();
  const CounterMeasurement measured = measureCounters(trace, hopper());
  EXPECT_EQ(measured.verdicts.at(idOf(trace, kElementwise)).tensor_core, TensorCoreUse::kNo);
}

TEST(HardwareCounters, SamplesSharedByTwoKernelsGiveNeitherAVerdict) {
  CounterTrace built;
  // Two kernels of 50 us each in every sample of 100 us: no sample is one kernel's.
  for (int s = 0; s < 4; ++s) {
    built.kernel(kTensorGemm, s * 100 - 5, s * 100 + 50).kernel(kElementwise, s * 100 + 45, s * 100 + 100, "aten::add");
    built.sample(s * 100, (s + 1) * 100, 30.0);
  }
  const trace::Trace& trace = built.correlated();
  const CounterMeasurement measured = measureCounters(trace, hopper());
  EXPECT_TRUE(measured.verdicts.empty());
  // Each kernel still carries the device's share over its run, for the tables.
  EXPECT_NEAR(measured.analysis.tensor_cores.active_share, 0.3, 1e-6);
}

TEST(HardwareCounters, APercentageOutsideZeroToHundredIsCounted) {
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100);
  built.placeholderRange(kTensorGemm, {{kHmmaPercent, 250.0}});
  const trace::Trace& trace = built.correlated();
  const CounterMeasurement measured = measureCounters(trace, hopper());
  EXPECT_EQ(measured.analysis.not_understood.at("hardware metric value outside what its unit allows"), 1u);
  EXPECT_NE(measured.analysis.first_place.at("hardware metric value outside what its unit allows").find("250"),
            std::string::npos);
  // Counted, and never read: 250% measures nothing, so no verdict comes of it.
  for (const KernelCounterRow& row : measured.analysis.kernels) EXPECT_FALSE(row.tensor_active) << row.kernel;
  EXPECT_EQ(measured.analysis.tensor_cores.covered_ns, 0);
}

TEST(HardwareCounters, AValueThatIsNoNumberIsCountedAndSpoilsNoFigure) {
  // The importers leave such values out; a trace built otherwise (a profile written by hand)
  // must still give finite figures.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100).kernel(kSgemm, 200, 300);
  built.placeholderRange(kTensorGemm, {{kHmmaPercent, nan}, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", nan}})
      .placeholderRange(kSgemm, {{kHmmaPercent, 0.0}});
  built.sample(0, 150, nan).sample(150, 300, 0.0);
  const trace::Trace& trace = built.correlated();
  const CounterMeasurement measured = measureCounters(trace, hopper());
  EXPECT_EQ(measured.analysis.not_understood.at("hardware metric value outside what its unit allows"), 2u);
  EXPECT_TRUE(std::isfinite(measured.analysis.tensor_cores.active_share));
  for (const KernelCounterRow& row : measured.analysis.kernels) {
    if (row.tensor_active) EXPECT_TRUE(std::isfinite(*row.tensor_active)) << row.kernel;
    if (row.cuda_core_ops) EXPECT_TRUE(std::isfinite(row.cuda_core_ops->fp32)) << row.kernel;
  }
  for (float share : measured.analysis.tensor_active_by_kernel) EXPECT_FALSE(std::isinf(share));
}

TEST(HardwareCounters, ATraceWithoutCountersHasNone) {
  CounterTrace built;
  built.kernel(kTensorGemm, 0, 100);
  const trace::Trace& trace = built.correlated();
  const TraceSummary summary = summarizeTrace(trace, {});
  EXPECT_FALSE(summary.counters.recorded());
  EXPECT_FALSE(summary.kernels.at(0).measured_tensor_active.has_value());
  EXPECT_NE(summary.kernels.at(0).verdict.confidence, Confidence::kMeasured);
  // The kernel time none of it covers: what "unknown" is said of.
  EXPECT_EQ(summary.counters.tensor_cores.kernel_time_ns, 95 * kUs);
  EXPECT_EQ(summary.counters.tensor_cores.covered_ns, 0);
}

TEST(HardwareCounters, SampleIntervalsCloseAtTheNextSampleOrEndAtTheirTime) {
  trace::Trace trace;
  const trace::StringId metric = trace.strings.intern(kTensorActive);
  std::vector<trace::MetricSample> starts = {{100, 0, 0, metric, 1}, {200, 0, 0, metric, 2}, {300, 0, 0, metric, 3}};
  trace::closeSampleIntervals(starts);
  EXPECT_EQ(starts[0].end_ns, 200);
  EXPECT_EQ(starts[2].end_ns, 400);  // the last keeps the series' period
  std::vector<trace::MetricSample> ends = {{100, 0, 0, metric, 1}, {200, 0, 0, metric, 2}};
  trace::closeSampleIntervals(ends, /*end_at_start=*/true);
  EXPECT_EQ(ends[0].start_ns, 0);
  EXPECT_EQ(ends[0].end_ns, 100);
  EXPECT_EQ(ends[1].start_ns, 100);
  EXPECT_EQ(ends[1].end_ns, 200);
}

}  // namespace
}  // namespace ampscope::analyzer
