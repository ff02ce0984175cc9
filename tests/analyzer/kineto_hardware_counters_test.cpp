// Kineto's hardware counters read into the trace model: CUPTI range-profiler events
// ("cuda_profiler_range") as KernelMetrics, CUPTI PM-sampling counter events
// ("hardware_counters") as MetricSamples, what is counted where a value cannot be used, and the
// same trace whatever the number of parsing threads.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../test_support.h"
#include "../trace_equality.h"
#include "analyzer/import/byte_source.h"
#include "analyzer/import/kineto/kineto_importer.h"
#include "analyzer/import/kineto/kineto_metric_events.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer::import {
namespace {

trace::Trace importJson(const test::ScratchDir& dir, const std::string& json, unsigned threads = 1) {
  auto imported = importTrace(dir.write("trace.json", json), {.progress = {}, .threads = threads});
  EXPECT_TRUE(imported.ok()) << imported.error().message;
  return imported.ok() ? std::move(imported).value() : trace::Trace{};
}

std::uint64_t count(const std::map<std::string, std::uint64_t>& counts, std::string_view reason) {
  const auto found = counts.find(std::string(reason));
  return found == counts.end() ? 0 : found->second;
}

std::string placeOf(const std::string& json, std::string_view event_start) {
  return fmt::format("traceEvents element at byte offset {}", json.find(event_start));
}

// The metric values of a range, by name.
std::map<std::string, double> valuesOf(const trace::Trace& t, const trace::KernelMetrics& range) {
  std::map<std::string, double> values;
  for (const trace::MetricValue& value : range.values) values[std::string(t.str(value.metric))] = value.value;
  return values;
}

// --- The range profiler -------------------------------------------------------------------------

// As Kineto's range profiler wrote them in auto-range mode (HTA's tests/data/cupti_profiler):
// three launches, then one range per launch on the device's pid, the session's span split evenly.
constexpr std::string_view kRangeTrace = R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": 100, "dur": 5, "args": {"correlation": 11, "cbid": 211}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": 110, "dur": 5, "args": {"correlation": 12, "cbid": 211}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": 120, "dur": 5, "args": {"correlation": 13, "cbid": 211}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "ampere_sgemm_32x32_sliced1x4_tn", "pid": 0, "tid": 0, "ts": 1000, "dur": 300,
   "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 554303488, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 3145728, "sm__inst_executed_pipe_tensor.sum": 0}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "__missing__", "pid": 0, "tid": 0, "ts": 1300, "dur": 300,
   "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 9119334400, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 24780800, "sm__inst_executed_pipe_tensor.sum": 0}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel", "pid": 0, "tid": 0, "ts": 1600, "dur": 300,
   "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 0, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 0, "sm__inst_executed_pipe_tensor.sum": 1.5e6}}
]})";

TEST(KinetoHardwareCountersTest, EachRangeProfilerEventBecomesAKernelsMetricsInLaunchOrder) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, std::string(kRangeTrace));
  ASSERT_EQ(t.kernel_metrics.size(), 3u);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
  EXPECT_EQ(t.import_stats.events_imported, 6u);

  const trace::KernelMetrics& sgemm = t.kernel_metrics[0];
  EXPECT_EQ(t.str(sgemm.kernel_name), "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_EQ(sgemm.start_ns, 1000000);
  EXPECT_EQ(sgemm.end_ns, 1300000);
  EXPECT_EQ(sgemm.device, 0u);
  EXPECT_EQ(sgemm.correlation_id, 0u);  // not written before 2025
  EXPECT_EQ(sgemm.pid, 4242);           // the file's launching process
  EXPECT_EQ(valuesOf(t, sgemm), (std::map<std::string, double>{
                                    {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 554303488.0},
                                    {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 3145728.0},
                                    {"sm__inst_executed_pipe_tensor.sum", 0.0}}));

  // Kineto did not know the second launch's kernel: the range is kept, its name empty.
  const trace::KernelMetrics& unnamed = t.kernel_metrics[1];
  EXPECT_EQ(unnamed.kernel_name, trace::StringTable::kEmpty);
  EXPECT_EQ(unnamed.start_ns, 1300000);
  EXPECT_EQ(valuesOf(t, unnamed).at("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 9119334400.0);
  EXPECT_EQ(valuesOf(t, t.kernel_metrics[2]).at("sm__inst_executed_pipe_tensor.sum"), 1.5e6);

  // The times are the profiler's placeholders, not the kernels': matched to launches by order.
  for (const trace::KernelMetrics& range : t.kernel_metrics) {
    EXPECT_FALSE(range.times_measured);
    EXPECT_EQ(range.launch, trace::kNone);  // the correlator's to fill
  }
}

TEST(KinetoHardwareCountersTest, ARangeValueThatIsNoNumberIsLeftOutAndCountedWithItsPlace) {
  // fmt writes a metric CUPTI could not evaluate as nan or inf: not JSON, but one token each.
  const std::string json = R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_profiler_range", "name": "k0", "pid": 0, "tid": 0, "ts": 10, "dur": 5, "args": {"a.sum": 1, "b.sum": 2}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "k1", "pid": 0, "tid": 0, "ts": 15, "dur": 5,
   "args": {"a.sum": nan, "b.sum": "12.5", "c.sum": inf, "d.sum": -nan, "e.sum": "n/a", "f.sum": [1], "g.sum": null, "h.sum": 7}}
]})";
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, json);
  ASSERT_EQ(t.kernel_metrics.size(), 2u);
  // A number written as a string is read; the range keeps the values that are numbers.
  EXPECT_EQ(valuesOf(t, t.kernel_metrics[1]), (std::map<std::string, double>{{"b.sum", 12.5}, {"h.sum", 7.0}}));
  EXPECT_EQ(count(t.import_stats.not_understood, kRangeValueNotANumber), 6u);
  EXPECT_EQ(t.import_stats.first_place.at(std::string(kRangeValueNotANumber)), placeOf(json, R"({"ph": "X", "cat": "cuda_profiler_range", "name": "k1")"));
  EXPECT_EQ(t.import_stats.events_imported, 2u);
}

TEST(KinetoHardwareCountersTest, ARangeOfTheNewestProfilerCarriesItsLaunchsCorrelationIdNotAsAMetric) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_profiler_range", "name": "gemm", "pid": 1, "tid": 0, "ts": 10, "dur": 5,
   "args": {"correlation": 42, "sm__inst_executed_pipe_tensor.sum": 96}}]})");
  ASSERT_EQ(t.kernel_metrics.size(), 1u);
  EXPECT_EQ(t.kernel_metrics[0].correlation_id, 42u);
  EXPECT_EQ(t.kernel_metrics[0].device, 1u);
  EXPECT_EQ(valuesOf(t, t.kernel_metrics[0]), (std::map<std::string, double>{{"sm__inst_executed_pipe_tensor.sum", 96.0}}));
}

TEST(KinetoHardwareCountersTest, ARangeOverTheWholeSessionIsSkippedNotTakenForAKernel) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1, "dur": 50},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "__profile__", "pid": 0, "tid": 0, "ts": 1, "dur": 50,
   "args": {"sm__inst_executed_pipe_tensor.sum": 96}}]})");
  EXPECT_TRUE(t.kernel_metrics.empty());
  EXPECT_EQ(count(t.import_stats.skipped, kWholeSessionRange), 1u);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
}

TEST(KinetoHardwareCountersTest, MetricsWrittenBeforeTheCategoryAreRead) {
  // A file whose keys were sorted when saved again: "args" comes before "cat".
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, R"({"traceEvents": [
  {"args": {"a.sum": 3, "correlation": 5}, "cat": "cuda_profiler_range", "dur": 5, "name": "k", "ph": "X", "pid": 0, "tid": 0, "ts": 10},
  {"args": {"": 0.25}, "cat": "hardware_counters", "name": "m.pct", "ph": "C", "pid": "GPU 0 Counters", "tid": 0, "ts": 10}]})");
  ASSERT_EQ(t.kernel_metrics.size(), 1u);
  EXPECT_EQ(valuesOf(t, t.kernel_metrics[0]), (std::map<std::string, double>{{"a.sum", 3.0}}));
  EXPECT_EQ(t.kernel_metrics[0].correlation_id, 5u);
  ASSERT_EQ(t.metric_samples.size(), 1u);
  EXPECT_EQ(t.metric_samples[0].value, 0.25);
}

TEST(KinetoHardwareCountersTest, ARangesNameTellsWhetherKinetoKnewTheKernel) {
  EXPECT_EQ(profiledKernelName("ampere_sgemm_32x32_sliced1x4_tn"), "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_EQ(profiledKernelName("__missing__"), "");
  EXPECT_EQ(profiledKernelName("17"), "");  // CUPTI's index of an auto range: no name was tracked
  EXPECT_EQ(profiledKernelName("kernel17"), "kernel17");
  EXPECT_EQ(profiledRangeOf("__profile__"), ProfiledRange::kWholeSession);
  EXPECT_EQ(profiledRangeOf("__missing__"), ProfiledRange::kKernelLaunch);
}

// --- PM sampling --------------------------------------------------------------------------------

// As Kineto's ChromeTraceLogger::handleCounterEvent writes PM samples: one event per metric per
// sample, on the track "GPU <n> Counters", times relative to baseTimeNanoseconds.
constexpr std::string_view kSamplingTrace = R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 9.000, "dur": 5},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "tid": 0, "ts": 10.000, "args": {"": 40.5}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__throughput.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "tid": 0, "ts": 10.000, "args": {"": 70}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 1 Counters", "tid": 0, "ts": 10.250, "args": {"": 5}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "tid": 0, "ts": 11.000, "args": {"": 41.5}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__throughput.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "tid": 0, "ts": 11.000, "args": {"": 71}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 1 Counters", "tid": 0, "ts": 10.750, "args": {"": 6}},
  {"ph": "C", "cat": "hardware_counters", "name": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "tid": 0, "ts": 12.000, "args": {"": 42.5}}
], "baseTimeNanoseconds": 1700000000000000000})";

constexpr std::int64_t kBase = 1700000000000000000;

TEST(KinetoHardwareCountersTest, PmSamplesLastUntilTheNextSampleOfTheirDeviceAndMetric) {
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, std::string(kSamplingTrace));
  EXPECT_TRUE(t.import_stats.not_understood.empty());
  ASSERT_EQ(t.metric_samples.size(), 7u);
  struct Expected {
    std::int64_t start_ns, end_ns;
    std::uint32_t device;
    std::string_view metric;
    double value;
  };
  constexpr std::string_view kTensor = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
  constexpr std::string_view kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
  // By start; a series' last sample lasts its series' period.
  const std::vector<Expected> expected = {
      {10000, 11000, 0, kTensor, 40.5}, {10000, 11000, 0, kSm, 70.0},   {10250, 10750, 1, kTensor, 5.0},
      {10750, 11250, 1, kTensor, 6.0},  {11000, 12000, 0, kTensor, 41.5}, {11000, 12000, 0, kSm, 71.0},
      {12000, 13000, 0, kTensor, 42.5},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(fmt::format("sample #{}", i));
    const trace::MetricSample& sample = t.metric_samples[i];
    EXPECT_EQ(sample.start_ns, kBase + expected[i].start_ns);
    EXPECT_EQ(sample.end_ns, kBase + expected[i].end_ns);
    EXPECT_EQ(sample.device, expected[i].device);
    EXPECT_EQ(t.str(sample.metric), expected[i].metric);
    EXPECT_EQ(sample.value, expected[i].value);
  }
}

TEST(KinetoHardwareCountersTest, CounterEventsOfAnotherShapeAreCountedWithTheirPlaceAndTheRestKept) {
  const std::string json = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1, "dur": 50},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "ts": 10, "args": {"": 1}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "CPU 0 Counters", "tid": 0, "ts": 11, "args": {"": 2}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": 0, "tid": 0, "ts": 12, "args": {"": 3}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "ts": 13, "args": {"": "high"}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "ts": 14, "args": {"value": 4}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "args": {"": 5}},
  {"ph": "C", "cat": "hardware_counters", "name": "", "pid": "GPU 0 Counters", "tid": 0, "ts": 15, "args": {"": 6}},
  {"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "ts": 16, "args": {"": 7}},
  {"ph": "C", "name": "GPU 0 Utilization", "pid": 0, "ts": 17, "args": {"GPU Utilization": 1}}
]})";
  test::ScratchDir dir;
  const trace::Trace t = importJson(dir, json);
  ASSERT_EQ(t.metric_samples.size(), 2u);
  EXPECT_EQ(t.metric_samples[0].value, 1.0);
  EXPECT_EQ(t.metric_samples[1].value, 7.0);
  const auto& stats = t.import_stats;
  EXPECT_EQ(count(stats.not_understood, kSampleWithoutGpu), 2u);
  EXPECT_EQ(stats.first_place.at(std::string(kSampleWithoutGpu)), placeOf(json, R"({"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "CPU)"));
  EXPECT_EQ(count(stats.not_understood, kSampleWithoutValue), 2u);
  EXPECT_EQ(stats.first_place.at(std::string(kSampleWithoutValue)),
            placeOf(json, R"({"ph": "C", "cat": "hardware_counters", "name": "m", "pid": "GPU 0 Counters", "tid": 0, "ts": 13)"));
  EXPECT_EQ(count(stats.not_understood, kSampleWithoutTime), 1u);
  EXPECT_EQ(count(stats.not_understood, kSampleWithoutMetric), 1u);
  // Other counter events stay as they were: not understood by their phase.
  EXPECT_EQ(count(stats.not_understood, "events with phase 'C'"), 1u);
}

TEST(KinetoHardwareCountersTest, ACounterTracksPidNamesItsGpu) {
  EXPECT_EQ(counterTrackDevice("GPU 0 Counters"), 0u);
  EXPECT_EQ(counterTrackDevice("GPU 13 Counters"), 13u);
  EXPECT_EQ(counterTrackDevice("GPU Counters"), std::nullopt);
  EXPECT_EQ(counterTrackDevice("GPU -1 Counters"), std::nullopt);
  EXPECT_EQ(counterTrackDevice("GPU 0"), std::nullopt);
  EXPECT_EQ(counterTrackDevice("GPU 99999999999 Counters"), std::nullopt);
  EXPECT_EQ(counterTrackDevice(""), std::nullopt);
}

TEST(KinetoHardwareCountersTest, AMetricValueIsAFiniteNumberWrittenAsANumberOrAString) {
  using Form = JsonScalar::Form;
  EXPECT_EQ(metricNumber({"38731776", Form::kNumber}), 38731776.0);
  EXPECT_EQ(metricNumber({"1.5e-3", Form::kNumber}), 1.5e-3);
  EXPECT_EQ(metricNumber({" 2.5 ", Form::kString}), 2.5);
  EXPECT_EQ(metricNumber({"-nan", Form::kNumber}), std::nullopt);
  EXPECT_EQ(metricNumber({"-inf", Form::kNumber}), std::nullopt);
  EXPECT_EQ(metricNumber({"nan", Form::kString}), std::nullopt);
  EXPECT_EQ(metricNumber({"1e999", Form::kNumber}), std::nullopt);
  EXPECT_EQ(metricNumber({"12abc", Form::kString}), std::nullopt);
  EXPECT_EQ(metricNumber({"", Form::kOther}), std::nullopt);
}

// --- One thread or several ----------------------------------------------------------------------

// Launches, ranges (some unnamed, some with a bad value) and PM samples of two GPUs, with metric
// names that repeat across batches.
std::string manyCounterEvents(int count) {
  std::string json = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  for (int i = 0; i < count; ++i) {
    if (i > 0) json += ",\n";
    switch (i % 4) {
      case 0:
        json += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": {}, "dur": 2, )"
                            R"("args": {{"correlation": {}}}}})",
                            i, i);
        break;
      case 1:
        json += fmt::format(R"({{"ph": "X", "cat": "cuda_profiler_range", "name": "{}", "pid": 0, "tid": 0, "ts": {}, "dur": 10, )"
                            R"("args": {{"metric_{}.sum": {}, "metric_{}.sum": {}, "sm__inst_executed_pipe_tensor.sum": {}}}}})",
                            i % 10 == 1 ? "__missing__" : fmt::format("kernel_{}", i % 37), 100000 + i * 10, i % 5, i,
                            i % 3 + 5, i % 7 == 1 ? "nan" : std::to_string(i * 2), i % 11);
        break;
      default:
        json += fmt::format(R"({{"ph": "C", "cat": "hardware_counters", "name": "pm_metric_{}", "pid": "GPU {} Counters", "tid": 0, )"
                            R"("ts": {}.{:03}, "args": {{"": {}.5}}}})",
                            i % 3, i % 2, i / 2, i % 1000, i % 100);
        break;
    }
  }
  return json + "\n], \"baseTimeNanoseconds\": 1700000000000000000}\n";
}

trace::Trace importThrough(const std::string& path, ByteSource::PlainFileAccess access, unsigned threads,
                           std::size_t batch_bytes) {
  auto source = ByteSource::open(path, access);
  EXPECT_TRUE(source.ok());
  if (!source.ok()) return {};
  auto imported = importKineto(**source, {.progress = {}, .threads = threads}, batch_bytes);
  EXPECT_TRUE(imported.ok()) << imported.error().message;
  return imported.ok() ? std::move(imported).value() : trace::Trace{};
}

TEST(KinetoHardwareCountersTest, OneParsingThreadAndSeveralGiveTheSameCounters) {
  test::ScratchDir dir;
  const std::string path = dir.write("counters.json", manyCounterEvents(4000));
  const trace::Trace one = importThrough(path, ByteSource::PlainFileAccess::kReadOnly, 1, 16 << 10);
  ASSERT_EQ(one.kernel_metrics.size(), 1000u);
  ASSERT_EQ(one.metric_samples.size(), 2000u);
  EXPECT_GT(count(one.import_stats.not_understood, kRangeValueNotANumber), 0u);
  for (const auto access : {ByteSource::PlainFileAccess::kReadOnly, ByteSource::PlainFileAccess::kMapWhereAllowed}) {
    for (unsigned threads : {2u, 4u}) {
      SCOPED_TRACE(fmt::format("{} threads, {}", threads,
                               access == ByteSource::PlainFileAccess::kReadOnly ? "read" : "mapped (guessed chunks)"));
      test::expectSameTrace(one, importThrough(path, access, threads, 16 << 10));
    }
  }
}

}  // namespace
}  // namespace ampscope::analyzer::import
