#include "analyzer/summary/trace_summary.h"

#include "analyzer/core/memo_by_id.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/core/time_by_kind.h"
#include "analyzer/correlate/layer_attribution.h"
#include "analyzer/model/rate_proof.h"
#include "analyzer/steps/gpu_activity.h"
#include "analyzer/steps/queued_work.h"
#include "analyzer/steps/step_replay.h"
#include "analyzer/steps/step_split.h"
#include "analyzer/tables/layer_performance.h"
#include "analyzer/verdicts/kernel_verdicts.h"
#include "base/run_beside.h"
#include "base/thread_count.h"

#include <algorithm>
#include <future>
#include <limits>
#include <memory>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;

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

// Accumulates kernel time per group (an operator name or a layer name). Groups are named once:
// callers look a group up by name when they first meet its key, and add each kernel by index.
class GroupAccumulator {
 public:
  explicit GroupAccumulator(const trace::Trace& trace) : trace_(trace), counted_range_(trace.ranges.size(), false) {}

  std::size_t groupNamed(const std::string& name) {
    auto [found, fresh] = index_of_name_.try_emplace(name, groups_.size());
    if (fresh) groups_.emplace_back().name = name;
    return found->second;
  }

  // A range counts as one call of its group however many kernels it launched; each range must
  // be added under one group only (kNone, "no op", may be under several).
  void add(std::size_t group_index, Index op_range, trace::Phase phase, trace::StringId kernel,
           const TensorCoreVerdict& verdict, std::int64_t duration_ns) {
    Group& group = groups_[group_index];
    if (op_range == kNone) {
      group.unattributed = true;
    } else if (!counted_range_[static_cast<std::size_t>(op_range)]) {
      counted_range_[static_cast<std::size_t>(op_range)] = true;
      ++group.ranges;
    }
    ++group.kernels;
    group.time_ns += duration_ns;
    if (verdict.tensor_core) group.tensor_core_ns += duration_ns;
    group.phase_time.add(phase, duration_ns);
    auto [slot, fresh] = kernel_slot_.try_emplace((static_cast<std::uint64_t>(group_index) << 32) | kernel,
                                                  group.kernel_times.size());
    if (fresh) group.kernel_times.push_back({kernel, nullptr, 0, 0});
    Kernel& k = group.kernel_times[slot->second];
    k.verdict = &verdict;
    ++k.calls;
    k.time_ns += duration_ns;
  }

  // Every group, heaviest first, each with every kernel.
  std::vector<GroupTime> all() const {
    std::vector<GroupTime> out;
    for (const Group& group : groups_) {
      GroupTime g;
      g.name = group.name;
      g.op_calls = group.ranges + (group.unattributed ? 1 : 0);
      g.kernels = group.kernels;
      g.gpu_time_ns = group.time_ns;
      g.tensor_core_time_ns = group.tensor_core_ns;
      g.phase = group.phase_time.empty() ? "unknown" : trace::phaseName(group.phase_time.heaviest());
      for (const Kernel& kernel : group.kernel_times) {
        g.kernel_times.push_back({std::string(trace_.str(kernel.name)), kernel.calls, kernel.time_ns, *kernel.verdict});
      }
      std::sort(g.kernel_times.begin(), g.kernel_times.end(), [](const KernelTime& a, const KernelTime& b) {
        return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
      });
      out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(), [](const GroupTime& a, const GroupTime& b) {
      return a.gpu_time_ns != b.gpu_time_ns ? a.gpu_time_ns > b.gpu_time_ns : a.name < b.name;
    });
    return out;
  }

 private:
  struct Kernel {
    trace::StringId name;
    const TensorCoreVerdict* verdict;  // the last one added (KernelVerdicts keeps it)
    std::uint64_t calls;
    std::int64_t time_ns;
  };
  struct Group {
    std::string name;
    std::uint64_t ranges = 0;
    bool unattributed = false;  // kernels launched by no op range count as one call
    std::uint64_t kernels = 0;
    std::int64_t time_ns = 0;
    std::int64_t tensor_core_ns = 0;
    PhaseTimes phase_time;
    std::vector<Kernel> kernel_times;
  };
  const trace::Trace& trace_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, std::size_t> index_of_name_;
  std::unordered_map<std::uint64_t, std::size_t> kernel_slot_;  // (group, kernel name) -> into its kernel_times
  std::vector<bool> counted_range_;
};

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

// Kernel and Tensor Core time inside each iteration. Kernels are sorted by start and
// iterations do not overlap, so one pass with a moving first iteration does it; a kernel that
// crosses a step's end also counts in the next step, for the part inside each.
std::vector<StepKernelTime> kernelTimePerStep(const trace::Trace& trace, const IterationSummary& iterations,
                                              KernelVerdicts& verdicts) {
  const std::vector<Iteration>& steps = iterations.iterations;
  std::vector<StepKernelTime> out(steps.size());
  std::size_t first = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    while (first < steps.size() && steps[first].end_ns <= kernel.start_ns) ++first;
    const bool tensor_core = static_cast<bool>(verdicts.of(kernel).tensor_core);
    for (std::size_t i = first; i < steps.size() && steps[i].start_ns < kernel.end_ns; ++i) {
      const std::int64_t inside =
          std::min(kernel.end_ns, steps[i].end_ns) - std::max(kernel.start_ns, steps[i].start_ns);
      if (inside <= 0) continue;
      out[i].kernel_ns += inside;
      if (tensor_core) out[i].tensor_core_ns += inside;
    }
  }
  return out;
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
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (op.kind == trace::MemoryOpKind::kMemcpy) summary.memcpy_time_ns += op.end_ns - op.start_ns;
  }
}

// Kernel time by Tensor Core verdict, by top-level operator and by layer.
void summarizeKernelTime(const trace::Trace& trace, KernelVerdicts& verdicts, TraceSummary& summary) {
  GroupAccumulator by_operator(trace);
  GroupAccumulator by_layer(trace);
  summary.tensor_cores.rules_version = TensorCoreRules::builtin().version();
  PrecisionTimes tensor_core_precision_time;
  // Each group's name is built once per top-level call or layer name, not per kernel.
  IndexById operator_group_of_top;  // by the top-level call's range index
  IndexById layer_group_of_name;    // by the layer's string id
  const auto groupOnce = [](IndexById& memo, std::size_t id, const auto& groupNamed) {
    return static_cast<std::size_t>(memo.get(id, [&] { return static_cast<std::int32_t>(groupNamed()); }));
  };
  for (const trace::Kernel& kernel : trace.kernels) {
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    summary.gpu_kernel_time_ns += duration;
    const TensorCoreVerdict& verdict = verdicts.of(kernel);
    if (verdict.tensor_core == TensorCoreUse::kYes) {
      summary.tensor_cores.time_ns += duration;
      tensor_core_precision_time.add(verdict.precision, duration);
      switch (verdict.confidence) {
        case Confidence::kHigh: summary.tensor_cores.high_confidence_ns += duration; break;
        case Confidence::kMedium: summary.tensor_cores.medium_confidence_ns += duration; break;
        case Confidence::kLow: summary.tensor_cores.low_confidence_ns += duration; break;
      }
    } else if (verdict.tensor_core == TensorCoreUse::kUnknown) {
      summary.tensor_cores.unknown_time_ns += duration;
    }
    if (kernel.op_range == kNone) {
      const std::size_t group = by_operator.groupNamed(kernel.launch == kNone ? "(no launch call in the trace)"
                                                                              : "(launched outside any operator)");
      by_operator.add(group, kNone, trace::Phase::kUnknown, kernel.name, verdict, duration);
      continue;
    }
    const Index top = topLevelOperator(trace, kernel.op_range);
    const trace::Range& op = trace.ranges[static_cast<std::size_t>(kernel.op_range)];
    const std::size_t operator_group = groupOnce(operator_group_of_top, static_cast<std::size_t>(top), [&] {
      return by_operator.groupNamed(operatorLabel(trace, trace.ranges[static_cast<std::size_t>(top)]));
    });
    by_operator.add(operator_group, top, op.phase, kernel.name, verdict, duration);
    if (op.layer != trace::StringTable::kEmpty) {
      const std::size_t layer_group = groupOnce(layer_group_of_name, op.layer, [&] {
        return by_layer.groupNamed(std::string(trace.str(op.layer)));
      });
      by_layer.add(layer_group, kernel.op_range, op.phase, kernel.name, verdict, duration);
    }
  }
  tensor_core_precision_time.forEach([&](MathPrecision precision, std::int64_t ns) {
    summary.tensor_cores.by_precision[precisionName(precision)] += ns;
  });
  if (summary.gpu_kernel_time_ns > 0) {
    summary.tensor_cores.fraction = static_cast<double>(summary.tensor_cores.time_ns) /
                                    static_cast<double>(summary.gpu_kernel_time_ns);
    summary.tensor_cores.unknown_fraction = static_cast<double>(summary.tensor_cores.unknown_time_ns) /
                                            static_cast<double>(summary.gpu_kernel_time_ns);
  }
  summary.tensor_cores.per_step = kernelTimePerStep(trace, summary.iterations, verdicts);
  summary.operators = by_operator.all();
  summary.layers = by_layer.all();
}

// The per-op model and the Tensor Core verdicts' evidence: the rate its ops achieved is evidence
// for the verdict of kernels no rule knows, and every table reports the verdicts with that evidence.
// Neither changes after this.
void proveKernelVerdicts(const trace::Trace& trace, TensorCoreEvidence& evidence, TraceSummary& summary) {
  evidence.device = verdictDevice(trace, summary.device);
  summary.op_performance =
      measureOpPerformance(trace, summary.iterations, summary.device, summary.recorded_on_cpu, &evidence);
  KernelVerdicts by_name(trace, &evidence);
  evidence.by_rate = proveByRate(trace, summary.op_performance, by_name);
}

// The tables built on the verdicts: kernel time by verdict, shape checks, layers and kernels, and
// the what-if device.
void summarizeKernelTables(const trace::Trace& trace, const AnalysisOptions& options,
                           const TensorCoreEvidence& evidence, TraceSummary& summary) {
  {
    KernelVerdicts verdicts(trace, &evidence);
    summarizeKernelTime(trace, verdicts, summary);
  }
  summary.shape_checks = checkShapes(trace, &evidence);
  summary.unfused_attention =
      findUnfusedAttention(trace, summary.iterations, summary.device, summary.recorded_on_cpu, &evidence);
  LayerAttribution attribution(trace);
  summary.layer_table =
      buildLayerTable(trace, attribution, summary.shape_checks, summary.recorded_on_cpu, &evidence);
  summary.kernels = buildKernelTable(trace, attribution, &evidence);
  summary.what_if = projectWhatIf(summary, options);
  addLayerPerformance(summary.layer_table, trace, attribution, summary.op_performance, summary.what_if, summary.recorded_on_cpu);
  addKernelPerformance(summary.kernels, trace, summary.op_performance, summary.recorded_on_cpu);
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

// Whether the analysis may run stages on threads of their own (AnalysisOptions::threads).
bool concurrentStages(const AnalysisOptions& options) { return threadsToUse(options.threads) > 1; }

}  // namespace

TraceSummary summarizeTrace(const trace::Trace& trace, const CorrelationCounts& counts, const AnalysisOptions& options,
                            const StageCallback& stage_done) {
  TraceSummary summary;
  summarizeContents(trace, counts, summary);
  summary.recorded_on_cpu = recordedOnCpu(trace);
  summary.iterations = findIterations(trace);
  summary.device = chooseRecordedDevice(trace, options.gpu);
  stageDone(stage_done, "contents and steps");
  // Two chains of stages that share nothing but the const trace, the fields set above and the
  // verdicts' evidence, and write disjoint fields of the summary. The kernel side proves the
  // verdicts, then builds the tables on them. The host side works out the steps' host work, then,
  // once the evidence is proven, the AMP projection, which also replays the steady steps that the
  // data pipeline's scenario replayed: run there rather than after both chains, it ends about when
  // the kernel side does.
  TensorCoreEvidence evidence;
  std::promise<void> evidence_proven;
  const std::shared_future<void> evidence_ready = evidence_proven.get_future().share();
  auto host_side = runBeside(concurrentStages(options), [&] {
    HostSideShared shared;
    summarizeHostSide(trace, shared, summary);
    stageDone(stage_done, "host side");
    evidence_ready.get();  // rethrows what stopped the kernel side
    summary.amdahl =
        projectAmp(trace, summary.iterations, summary.op_performance, &evidence, &*shared.replayer, &*shared.gpu);
    summary.tf32 = projectTf32(summary.amdahl, summary.op_performance);
    stageDone(stage_done, "AMP projection");
  });
  try {
    proveKernelVerdicts(trace, evidence, summary);
  } catch (...) {
    // The host side waits for the evidence, and host_side's end is waited for as it goes.
    evidence_proven.set_exception(std::current_exception());
    throw;
  }
  evidence_proven.set_value();
  stageDone(stage_done, "kernel verdicts proven");
  summarizeKernelTables(trace, options, evidence, summary);
  stageDone(stage_done, "kernel tables");
  host_side.get();
  return summary;
}

}  // namespace ampscope::analyzer
