#include "analyzer/summary/trace_summary.h"

#include "analyzer/core/device_names.h"

#include "analyzer/correlate/layer_attribution.h"
#include "analyzer/counters/measure_counters.h"
#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/model_flops.h"
#include "analyzer/model/rate_proof.h"
#include "analyzer/steps/gpu_activity.h"
#include "analyzer/steps/queued_work.h"
#include "analyzer/steps/step_replay.h"
#include "analyzer/steps/step_split.h"
#include "analyzer/tables/kernel_time.h"
#include "analyzer/tables/layer_performance.h"
#include "analyzer/tables/measured_activity.h"
#include "analyzer/verdicts/kernel_verdicts.h"
#include "base/run_beside.h"
#include "base/thread_count.h"

#include <algorithm>
#include <future>
#include <limits>
#include <memory>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

std::int64_t traceSpan(const trace::Trace& trace) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  const auto extend = [&](std::int64_t start, std::int64_t end) {
    first = std::min(first, start);
    last = std::max(last, end);
  };
  for (const auto& e : trace.kernels) extend(e.start_ns, e.end_ns);
  for (const auto& e : trace.launches) extend(e.start_ns, e.end_ns);
  for (const auto& e : trace.memory_ops) extend(e.start_ns, e.end_ns);
  for (const auto& e : trace.ranges) extend(e.start_ns, e.end_ns);
  return last > first ? last - first : 0;
}

std::vector<DeviceSummary> summarizeDevices(const trace::Trace& trace) {
  std::map<std::uint32_t, DeviceSummary> devices;
  for (const trace::Device& device : trace.devices) {
    DeviceSummary& d = devices[device.id];
    d.id = device.id;
    d.name = std::string(trace.str(device.name));
    d.kind = device.kind;
    if (device.compute_major > 0) d.compute_capability = fmt::format("{}.{}", device.compute_major, device.compute_minor);
    d.sm_count = device.sm_count;
  }
  // Each device's busy time: kernels come sorted by start, so one open interval per device,
  // closed when a kernel starts after its end, gives the union of its kernels' intervals.
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> open;
  for (const trace::Kernel& kernel : trace.kernels) {
    DeviceSummary& d = devices[kernel.device];
    d.id = kernel.device;
    ++d.kernels;
    d.kernel_time_ns += kernel.end_ns - kernel.start_ns;
    const auto [interval, first] = open.try_emplace(kernel.device, kernel.start_ns, kernel.end_ns);
    if (first) continue;
    auto& [start, end] = interval->second;
    if (kernel.start_ns <= end) {
      end = std::max(end, kernel.end_ns);
    } else {
      d.busy_ns += end - start;
      start = kernel.start_ns;
      end = kernel.end_ns;
    }
  }
  for (const auto& [id, interval] : open) devices[id].busy_ns += interval.second - interval.first;
  std::vector<DeviceSummary> out;
  for (auto& [id, device] : devices) out.push_back(std::move(device));
  std::stable_sort(out.begin(), out.end(), [](const DeviceSummary& a, const DeviceSummary& b) {
    return (a.kernels > 0) > (b.kernels > 0);
  });
  return out;
}

// The GPU a batch must fit in when not the recorded one: the what-if device, with the memory the
// user's name states (--gpu V100-SXM2-32GB) where its row spans sizes and says none.
std::optional<DeviceSpec> memoryFitDevice(const WhatIfProjection& what_if, const AnalysisOptions& options) {
  if (!what_if.device.spec) return std::nullopt;
  DeviceSpec spec = *what_if.device.spec;
  if (spec.capacity_gib <= 0 && what_if.device.basis == DeviceBasis::kUserNamed) {
    if (const std::optional<GpuNameReading> reading = readGpuName(options.gpu); reading && reading->memory_gb > 0) {
      spec.capacity_gib = reading->memory_gb;
    }
  }
  return spec;
}

// The what-if device: --gpu when it names another GPU than the recorded one; a CPU run's default.
WhatIfProjection projectWhatIf(const TraceSummary& summary, const AnalysisOptions& options) {
  const DeviceSpec* asked = options.gpu.empty() ? nullptr : findDevice(options.gpu);
  DeviceChoice target;
  bool default_device = false;
  if (summary.recorded_on_cpu) {
    target.spec = rowSpec(asked ? asked : findDevice(kDefaultWhatIfGpu));
    target.basis = asked ? DeviceBasis::kUserNamed : DeviceBasis::kNone;
    target.reason = asked ? fmt::format("--gpu {}", options.gpu)
                          : "the default for a CPU run; --gpu NAME projects on another";
    default_device = !asked;
  } else if (asked && (!summary.device.spec || asked->name != summary.device.spec->name)) {
    target.spec = rowSpec(asked);
    target.basis = DeviceBasis::kUserNamed;
    target.reason = fmt::format("--gpu {}; the run used {}", options.gpu,
                                summary.device.spec ? summary.device.spec->name : std::string("an unknown GPU"));
  } else {
    return {};
  }
  const double steps = static_cast<double>(std::max<std::size_t>(1, summary.iterations.iterations.size()));
  return projectOnDevice(summary.op_performance, target, steps, default_device);
}

// What the trace holds and how much of it is tied together: counts, spans and busy time.
void summarizeContents(const trace::Trace& trace, const CorrelationCounts& counts, TraceSummary& summary) {
  summary.format = trace::formatName(trace.format);
  summary.format_detail = trace.format_detail;
  summary.devices = summarizeDevices(trace);
  summary.threads = trace.threads.size();
  summary.ranges = trace.ranges.size();
  summary.launches = trace.launches.size();
  summary.memory_ops = trace.memory_ops.size();
  summary.synchronizations = trace.synchronizations.size();
  summary.correlation = counts;
  summary.gpu_busy_ns = GpuActivity(trace, GpuActivity::Work::kKernelsOnly).busyTotal();
  summary.trace_span_ns = traceSpan(trace);
  summary.import_stats = trace.import_stats;
  summary.distributed = trace.distributed;
  summary.epoch_offset_ns = trace.epoch_offset_ns;
  summary.read_window = trace.read_window;
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (op.kind == trace::MemoryOpKind::kMemcpy) summary.memcpy_time_ns += op.end_ns - op.start_ns;
  }
}

// The per-op model, the Tensor Core verdicts' evidence and, on them, the per-kernel table: the rate
// an op achieved is evidence for the verdict of kernels no rule knows, and every table reports the
// verdicts with that evidence. None of them changes after this.
void attributeKernelsOnce(const trace::Trace& trace, TensorCoreEvidence& evidence, TraceSummary& summary) {
  evidence.device = verdictDevice(trace, summary.device);
  // The counters' verdicts outrank the rate's and the name's: measured before either is read.
  CounterMeasurement counters = measureCounters(trace, evidence.device);
  evidence.by_measurement = std::move(counters.verdicts);
  summary.counters = std::move(counters.analysis);
  LayerAttribution attribution(trace);
  KernelOpRows op_rows;
  {
    // The model builds the rows the table points at, and the proof by rate the verdicts it holds:
    // both run before it, on the verdicts the names give.
    KernelVerdicts by_name(trace, &evidence);
    summary.op_performance =
        measureOpPerformance(trace, summary.device, summary.recorded_on_cpu, by_name, attribution, op_rows);
    evidence.by_rate = proveByRate(trace, summary.op_performance, op_rows, by_name);
  }
  summary.kernel_attribution = attributeKernels(trace, summary.iterations, evidence, attribution, op_rows);
  measureModelFlops(summary.op_performance, trace, summary.iterations, summary.kernel_attribution,
                    summary.recorded_on_cpu);
}

// Whether the analysis may run stages on threads of their own (AnalysisOptions::threads).
bool concurrentStages(const AnalysisOptions& options) { return threadsToUse(options.threads) > 1; }

// The tables built on the per-kernel table: kernel time by verdict, operator and layer, shape
// checks, attention computed in pieces, layers and kernels, and the what-if device. The shape
// checks and the layer table on them run beside the others (`concurrent`): each reads the trace
// and the per-kernel table and writes its own fields.
void summarizeKernelTables(const trace::Trace& trace, const AnalysisOptions& options, bool concurrent,
                           TraceSummary& summary) {
  const KernelAttribution& kernels = summary.kernel_attribution;
  auto layers = runBeside(concurrent, [&] {
    summary.shape_checks = checkShapes(trace, kernels);
    summary.layer_table = buildLayerTable(trace, kernels, summary.shape_checks, summary.recorded_on_cpu);
  });
  KernelTimeTables time = measureKernelTime(trace, kernels, summary.iterations);
  summary.gpu_kernel_time_ns = time.kernel_time_ns;
  summary.tensor_cores = std::move(time.tensor_cores);
  summary.operators = std::move(time.operators);
  summary.layers = std::move(time.layers);
  summary.unfused_attention =
      findUnfusedAttention(trace, summary.iterations, summary.device, summary.recorded_on_cpu, kernels);
  summary.kernels = buildKernelTable(trace, kernels);
  layers.get();
  addMeasuredTensorActivity(summary.kernels, summary.layer_table, trace, kernels,
                            summary.counters.tensor_active_by_kernel);
  summary.what_if = projectWhatIf(summary, options);
  addLayerPerformance(summary.layer_table, trace, kernels, summary.op_performance, summary.what_if,
                      summary.recorded_on_cpu);
  addKernelPerformance(summary.kernels, trace, kernels, summary.op_performance, summary.recorded_on_cpu);
}

// What the host's side of the steps works out for the AMP projection too.
struct HostSideShared {
  std::optional<GpuActivity> gpu;  // kernels and copies of every device
  std::optional<StepReplayer> replayer;
};

// The host's side of the steps, which no kernel verdict changes: data loading, the step's parts,
// stalls, the launch queue, collectives and AMP numerics. Leaves `shared` for the AMP projection;
// the replayer is collected last, so that it does not hold its memory while the stages before it
// hold theirs.
void summarizeHostSide(const trace::Trace& trace, HostSideShared& shared, TraceSummary& summary) {
  summary.host_stalls = measureHostStalls(trace, summary.iterations);
  // The queued GPU work and the calls it blocked, worked out once for the queue and the replay.
  auto queued = std::make_shared<const QueuedWork>(trace);
  summary.launch_queue = measureLaunchQueue(trace, summary.iterations, *queued);
  summary.communication = measureCommunication(trace, summary.iterations);
  summary.amp_numerics = measureAmpNumerics(trace);
  shared.replayer.emplace(trace, summary.iterations, std::move(queued));
  shared.gpu.emplace(trace);
  summary.data_pipeline = measureDataPipeline(trace, summary.iterations, &*shared.replayer, &*shared.gpu);
  summary.step_by_pass = splitStepByPass(trace, summary.iterations, summary.data_pipeline);
  summary.step_splits = splitSteps(trace, summary.iterations, summary.data_pipeline);
}


}  // namespace

TraceSummary summarizeTrace(const trace::Trace& trace, const CorrelationCounts& counts, const AnalysisOptions& options,
                            const StageCallback& stage_done) {
  TraceSummary summary;
  // The counts and spans beside the steps and the device: each reads the trace and writes its own
  // fields.
  auto contents = runBeside(concurrentStages(options), [&] { summarizeContents(trace, counts, summary); });
  summary.recorded_on_cpu = recordedOnCpu(trace);
  summary.iterations = findIterations(trace);
  summary.device = chooseRecordedDevice(trace, options.gpu);
  contents.get();
  stageDone(stage_done, "contents and steps");
  // Two chains of stages that share nothing but the const trace, the fields set above, the per-op
  // model and the per-kernel table, and write disjoint fields of the summary. The kernel side
  // proves the verdicts and builds the per-kernel table, then the tables on it. The host side works
  // out the steps' host work, then, once the per-kernel table exists, the AMP projection, which
  // also replays the steady steps that the data pipeline's scenario replayed: run there rather
  // than after both chains, it ends about when the kernel side does.
  TensorCoreEvidence evidence;
  std::promise<void> kernels_attributed;
  const std::shared_future<void> attribution_ready = kernels_attributed.get_future().share();
  auto host_side = runBeside(concurrentStages(options), [&] {
    HostSideShared shared;
    summarizeHostSide(trace, shared, summary);
    stageDone(stage_done, "host side");
    attribution_ready.get();  // rethrows what stopped the kernel side
    summary.amdahl = projectAmp(trace, summary.iterations, summary.op_performance, summary.kernel_attribution,
                                &*shared.replayer, &*shared.gpu);
    summary.tf32 = projectTf32(summary.amdahl, summary.op_performance);
    stageDone(stage_done, "AMP projection");
  });
  try {
    attributeKernelsOnce(trace, evidence, summary);
  } catch (...) {
    // The host side waits for the table, and host_side's end is waited for as it goes.
    kernels_attributed.set_exception(std::current_exception());
    throw;
  }
  kernels_attributed.set_value();
  stageDone(stage_done, "kernel verdicts proven");
  summarizeKernelTables(trace, options, concurrentStages(options), summary);
  stageDone(stage_done, "kernel tables");
  const std::optional<DeviceSpec> fit_device = memoryFitDevice(summary.what_if, options);
  summary.memory = analyzeMemory(trace, summary.iterations, fit_device ? &*fit_device : nullptr);
  stageDone(stage_done, "memory");
  host_side.get();
  for (const auto& [reason, count] : summary.memory.not_understood) {
    summary.import_stats.not_understood[reason] += count;
    summary.import_stats.first_place.try_emplace(reason, summary.memory.first_place.at(reason));
  }
  for (const auto& [reason, count] : summary.counters.not_understood) {
    summary.import_stats.not_understood[reason] += count;
    summary.import_stats.first_place.try_emplace(reason, summary.counters.first_place.at(reason));
  }
  return summary;
}

}  // namespace ampscope::analyzer
