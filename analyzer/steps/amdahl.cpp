#include "analyzer/steps/amdahl.h"

#include <array>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "analyzer/steps/gpu_activity.h"
#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

std::size_t slot(StepPartKind kind) { return static_cast<std::size_t>(kind); }

}  // namespace

const char* stepPartKindName(StepPartKind kind) {
  switch (kind) {
    case StepPartKind::kTensorCoreMath: return "tensor_core_math";
    case StepPartKind::kEligibleFp32Math: return "eligible_fp32_math";
    case StepPartKind::kEligibleTf32Math: return "eligible_tf32_math";
    case StepPartKind::kUnknownMath: return "unknown_math";
    case StepPartKind::kMemoryBound: return "memory_bound";
    case StepPartKind::kCommunication: return "communication";
    case StepPartKind::kMemcpy: return "memcpy";
    case StepPartKind::kIdle: break;
  }
  return "idle";
}

const char* stepPartLabel(StepPartKind kind) {
  switch (kind) {
    case StepPartKind::kTensorCoreMath: return "math already on FP16/BF16 Tensor Cores";
    case StepPartKind::kEligibleFp32Math: return "eligible math in FP32 on CUDA cores";
    case StepPartKind::kEligibleTf32Math: return "eligible math in TF32 on Tensor Cores";
    case StepPartKind::kUnknownMath: return "matrix math of unknown Tensor Core use";
    case StepPartKind::kMemoryBound: return "memory-bound and other kernels";
    case StepPartKind::kCommunication: return "collectives (NCCL)";
    case StepPartKind::kMemcpy: return "memcpy and memset";
    case StepPartKind::kIdle: break;
  }
  return "GPU idle: host, data loading, launch gaps";
}

bool isMatrixMath(StepPartKind kind) {
  return kind == StepPartKind::kTensorCoreMath || kind == StepPartKind::kEligibleFp32Math ||
         kind == StepPartKind::kEligibleTf32Math || kind == StepPartKind::kUnknownMath;
}

const StepPart* AmdahlProjection::part(StepPartKind kind) const {
  for (const StepPart& p : parts) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

AmdahlProjection projectAmp(const trace::Trace& trace, const IterationSummary& iterations, const OpPerformance& ops,
                            const KernelAttribution& kernels, const StepReplayer* replayer,
                            const GpuActivity* shared_gpu) {
  AmdahlProjection out;
  if (recordedOnCpu(trace)) {
    // Host ops say nothing about the GPU kernels the same model would run.
    out.note = "recorded on the CPU (the trainer's CPU backend): a measured AMP projection needs a GPU run; the what-if projection estimates one";
    return out;
  }
  if (!ops.device.spec) {
    out.note = ops.device.reason.empty() ? "the device is unknown: name it with --gpu NAME" : ops.device.reason;
    return out;
  }
  out.device = *ops.device.spec;
  const bool steps = iterations.steadyCount() > 0 && iterations.steady_mean_ns > 0;
  out.per_step = steps;
  // Without steps, the window is the trace's span of GPU work.
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  const SteadySpans steady(iterations, StepClock::kHost);
  const auto inWindow = [&](std::int64_t asked) { return !steps || steady.contains(asked); };

  std::array<double, kStepPartKinds.size()> time{};
  std::array<double, kStepPartKinds.size()> predicted{};
  ReplayScenario amp;
  ReplayScenario free_math;
  amp.kernel_speedup.assign(trace.kernels.size(), 1.0);
  free_math.kernel_speedup.assign(trace.kernels.size(), 1.0);
  for (std::size_t index = 0; index < trace.kernels.size(); ++index) {
    const trace::Kernel& kernel = trace.kernels[index];
    const KernelOwner& owner = kernels.kernels[index];
    // A kernel counts in the step whose host work launched it. Every kernel gets its speedup (the
    // replay also runs work queued before the window that starts in it); only the window's count
    // in the parts.
    const bool in_window = !steps || owner.steady;
    if (in_window) {
      first = std::min(first, kernel.start_ns);
      last = std::max(last, kernel.end_ns);
    }
    const TensorCoreVerdict& v = kernels.verdictOf(index);
    const std::int32_t r = owner.op_row;
    const OpRow* row = r < 0 ? nullptr : &ops.rows[static_cast<std::size_t>(r)];
    StepPartKind kind = StepPartKind::kMemoryBound;
    if (row && row->op_class == OpClass::kCommunication) kind = StepPartKind::kCommunication;
    else if (v.tensor_core && v.precision == MathPrecision::kTf32) kind = StepPartKind::kEligibleTf32Math;
    else if (v.tensor_core) kind = StepPartKind::kTensorCoreMath;
    else if (v.tensor_core == TensorCoreUse::kUnknown && isMatrixKernel(v, true)) kind = StepPartKind::kUnknownMath;
    else if (row && row->op_class == OpClass::kMatrix && isMatrixKernel(v, true)) kind = StepPartKind::kEligibleFp32Math;
    // Unknown stays unknown: no AMP gain is claimed for math that may already be FP16/BF16.
    const double speedup = kind == StepPartKind::kUnknownMath ? 1.0
                           : row && row->predicted_amp_ns ? row->amp_speedup
                                                          : 1.0;
    amp.kernel_speedup[index] = speedup;
    free_math.kernel_speedup[index] = isMatrixMath(kind) ? std::numeric_limits<double>::infinity() : speedup;
    if (!in_window) continue;
    const double duration = static_cast<double>(kernel.end_ns - kernel.start_ns);
    time[slot(kind)] += duration;
    predicted[slot(kind)] += duration / speedup;
  }
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (!inWindow(op.start_ns)) continue;
    time[slot(StepPartKind::kMemcpy)] += static_cast<double>(op.end_ns - op.start_ns);
    predicted[slot(StepPartKind::kMemcpy)] += static_cast<double>(op.end_ns - op.start_ns);
  }
  // Kernel times add up over concurrent streams; scale the parts to the GPU's busy time so that
  // they and the idle time add up to the window.
  std::optional<GpuActivity> own_gpu;
  const GpuActivity& gpu = shared_gpu ? *shared_gpu : own_gpu.emplace(trace);
  std::int64_t busy = 0;
  std::int64_t window_total = 0;
  double windows = 1.0;
  if (steps) {
    for (const Iteration& it : iterations.iterations) {
      if (it.warmup) continue;
      busy += gpu.busyWithin(it.start_ns, it.end_ns);
      window_total += it.durationNs();
    }
    windows = static_cast<double>(iterations.steadyCount());
  } else if (last > first) {
    busy = gpu.busyWithin(first, last);
    window_total = last - first;
  }
  if (window_total <= 0) {
    out.note = "no GPU work to project";
    return out;
  }
  double summed = 0;
  for (double t : time) summed += t;
  const double scale = summed > 0 ? static_cast<double>(std::min(busy, window_total)) / summed : 0.0;
  const double window_ns = static_cast<double>(window_total) / windows;
  out.window_ns = static_cast<std::int64_t>(window_ns);
  double projected_time = 0;
  double ceiling_time = 0;
  double accounted = 0;
  for (StepPartKind kind : kStepPartKinds) {
    if (kind == StepPartKind::kIdle) continue;
    const double ns = time[slot(kind)] * scale / windows;
    const double speedup = predicted[slot(kind)] > 0 ? time[slot(kind)] / predicted[slot(kind)] : 1.0;
    accounted += ns;
    out.parts.push_back({kind, static_cast<std::int64_t>(ns), ns / window_ns, speedup});
    projected_time += ns / speedup;
    if (!isMatrixMath(kind)) ceiling_time += ns / speedup;
  }
  const double idle = std::max(0.0, window_ns - accounted);
  out.parts.push_back({StepPartKind::kIdle, static_cast<std::int64_t>(idle), idle / window_ns, 1.0});
  projected_time += idle;
  ceiling_time += idle;
  out.projected_speedup = projected_time > 0 ? window_ns / projected_time : 1.0;
  out.ceiling = ceiling_time > 0 ? window_ns / ceiling_time : 1.0;
  if (!steps) {
    out.note = fmt::format("no steps found: projected over the trace's {:.1f} ms of GPU work", window_ns / 1e6);
    return out;
  }
  // The same speedups replayed at the host's pace (step_replay.h: blocked host time given back).
  std::optional<StepReplayer> own_replayer;
  if (!replayer) replayer = &own_replayer.emplace(trace, iterations);
  out.replay = replayer->replay(amp);
  out.replay_ceiling = replayer->replay(free_math);
  return out;
}

}  // namespace ampscope::analyzer
