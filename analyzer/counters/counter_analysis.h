#pragma once
// What the hardware counters say: per kernel name, each recorded metric's total over its profiled
// ranges and the tensor pipe's measured activity; per device, the sampled metrics over time; the
// measured share of kernel time on Tensor Cores and the time that measurement covers; and the
// kernels whose name and counters disagree. The counters are the strongest evidence of Tensor Core
// use: a kernel measured gets a verdict of confidence `measured` (tensor_core_verdict.h) that
// outranks its name and its rate. Sources, rules and thresholds: docs/hardware_counters.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/counters/metric_reading.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// How a kernel's tensor pipe activity was measured.
enum class MeasurementSource : std::uint8_t {
  kNone,
  kPerKernel,  // a range profiler's counters over each kernel (exact, kernels serialised)
  kSampled,    // device-wide samples over the time the kernel ran alone on its device
};
const char* measurementSourceName(MeasurementSource source);  // "none", "per_kernel", "sampled"

// Floating-point operations CUDA cores executed, from per-thread instruction counts
// (smsp__sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}): 2 per FMA, 1 per add or mul. They
// say nothing of Tensor Core math, which runs as MMA instructions on another pipe.
struct CudaCoreOps {
  double fp16 = 0.0;
  double fp32 = 0.0;
  double fp64 = 0.0;
};

struct MetricTotal {
  std::string metric;  // as recorded
  double total = 0.0;  // summed over the ranges that recorded it
  std::uint64_t ranges = 0;
};

// One kernel name's counters.
struct KernelCounterRow {
  std::string kernel;  // as recorded; "" where the tool did not know the kernel
  std::uint64_t ranges = 0;   // profiled ranges of this name (range profiler)
  std::uint64_t matched = 0;  // of them, matched to a launch of the trace
  std::vector<MetricTotal> totals;  // every metric its ranges recorded, by metric name
  std::int64_t time_ns = 0;         // the trace's kernels of this name, summed (0 where none is recorded)
  // The tensor pipe's measured activity: the share of elapsed cycles it was busy, time-weighted
  // over `measured_ns` of this name's kernel time (per-kernel ranges with placeholder times
  // weigh each range alike and cover no known time). nullopt: not measured.
  std::optional<double> tensor_active;
  std::int64_t measured_ns = 0;
  MeasurementSource source = MeasurementSource::kNone;
  std::string basis;  // the metric(s) the share was read from
  std::optional<CudaCoreOps> cuda_core_ops;  // where FP instruction counts were recorded
};

// The profiled ranges of the kernels one layer (or top-level operator) launched in one pass:
// where a range profiler recorded no kernel records (Kineto's CUPTI-profiler mode), the layer
// table has no rows, and this is where its counters land per layer.
struct GroupCounterRow {
  std::string group;  // the layer, or the top-level operator where the trace names no layers
  trace::Phase pass = trace::Phase::kUnknown;
  std::uint64_t ranges = 0;
  std::vector<MetricTotal> totals;
  std::optional<double> tensor_active;  // weighted as KernelCounterRow's
  std::optional<CudaCoreOps> cuda_core_ops;
};

// The measured counterpart of TensorCoreTime: how much kernel time the counters cover, and of it
// how much ran with the tensor pipe busy.
struct MeasuredTensorCores {
  std::int64_t kernel_time_ns = 0;  // all GPU kernel time
  std::int64_t covered_ns = 0;      // kernel time with a tensor-pipe measurement
  double active_share = 0.0;        // the tensor pipe's busy share over the covered time
  std::int64_t tensor_core_ns = 0;  // covered time of kernels measured on Tensor Cores
  std::int64_t idle_ns = 0;         // covered time of kernels measured with the pipe idle
  std::vector<std::string> metrics;  // the metrics read
};

// A kernel whose name (or rate) verdict and measured verdict differ.
struct VerdictDisagreement {
  std::string kernel;
  TensorCoreVerdict by_name;  // the verdict without counters
  TensorCoreUse measured = TensorCoreUse::kUnknown;
  double tensor_active = 0.0;
  std::int64_t time_ns = 0;
  std::string basis;
};

struct SeriesPoint {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  double value = 0.0;
};

// One sampled metric of one device over time, for timelines: as recorded, and, for a metric of
// known meaning and unit, `share` in 0..1 (a percentage / 100, a ratio as it is).
struct MetricSeries {
  std::uint32_t device = 0;
  std::string metric;
  MetricReading reading;
  std::vector<SeriesPoint> points;  // by time
  bool share = false;  // points hold a 0..1 share rather than the recorded value
};

struct CounterAnalysis {
  std::vector<KernelCounterRow> kernels;  // heaviest first (time, then ranges)
  std::vector<GroupCounterRow> groups;    // profiled ranges matched to a launch, in the order first run
  bool groups_operators = false;          // groups are top-level operators (no layer named)
  std::vector<MetricSeries> series;       // by device, then metric
  MeasuredTensorCores tensor_cores;
  std::vector<VerdictDisagreement> disagreements;  // by time, largest first
  // Per trace kernel (in the trace's order): the measured tensor pipe share, NaN where the kernel
  // was not measured. The kernel and layer tables sum it over their kernels.
  std::vector<float> tensor_active_by_kernel;
  // Ranges or samples the analysis could not use, by reason, and where each reason was first met.
  std::map<std::string, std::uint64_t> not_understood;
  std::map<std::string, std::string> first_place;

  bool recorded() const { return !kernels.empty() || !series.empty(); }
};

}  // namespace ampscope::analyzer
