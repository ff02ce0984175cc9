#include "analyzer/amdahl.h"

#include <array>
#include <limits>
#include <optional>
#include <vector>

#include "analyzer/gemm_shapes.h"
#include "analyzer/shape_checks.h"
#include "analyzer/gpu_activity.h"
#include "analyzer/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

std::size_t slot(StepPartKind kind) { return static_cast<std::size_t>(kind); }

}  // namespace

const char* stepPartKindName(StepPartKind kind) {
  switch (kind) {
    case StepPartKind::kTensorCoreMath: return "tensor_core_math";
    case StepPartKind::kEligibleFp32Math: return "eligible_fp32_math";
    case StepPartKind::kEligibleTf32Math: return "eligible_tf32_math";
    case StepPartKind::kMemoryBound: return "memory_bound";
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
    case StepPartKind::kMemoryBound: return "memory-bound and other kernels";
    case StepPartKind::kMemcpy: return "memcpy and memset";
    case StepPartKind::kIdle: break;
  }
  return "GPU idle: host, data loading, launch gaps";
}

bool isMatrixMath(StepPartKind kind) {
  return kind == StepPartKind::kTensorCoreMath || kind == StepPartKind::kEligibleFp32Math ||
         kind == StepPartKind::kEligibleTf32Math;
}

const StepPart* AmdahlProjection::part(StepPartKind kind) const {
  for (const StepPart& p : parts) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

AmdahlProjection projectAmp(const trace::Trace& trace, const IterationSummary& iterations) {
  AmdahlProjection out;
  if (recordedOnCpu(trace)) {
    // Host ops say nothing about the GPU kernels the same model would run.
    out.note = "recorded on the CPU (the trainer's CPU backend): the AMP projection needs a GPU run";
    return out;
  }
  for (const trace::Device& device : trace.devices) {
    out.device = peaksFor(device);
    if (!out.device.name.empty()) break;
  }
  if (out.device.name.empty()) {
    out.note = "no peak-rate row for this trace's device (compute capability unknown or not in the table)";
    return out;
  }
  if (iterations.steadyCount() == 0 || iterations.steady_mean_ns <= 0) {
    out.note = "no steady iterations to project";
    return out;
  }
  KernelVerdicts verdicts(trace);
  std::vector<std::int8_t> eligible(trace.ranges.size(), -1);  // by op range: -1 not yet known
  std::array<std::int64_t, kStepPartKinds.size()> time{};
  // The part of each kernel launched in a steady step; nullopt for the others.
  std::vector<std::optional<StepPartKind>> kernel_part(trace.kernels.size());
  bool half_precision_seen = false;
  for (std::size_t index = 0; index < trace.kernels.size(); ++index) {
    const trace::Kernel& kernel = trace.kernels[index];
    // Attribute a kernel to the step whose host work launched it.
    const std::int64_t asked = kernel.launch == trace::kNone
                                   ? kernel.start_ns
                                   : trace.launches[static_cast<std::size_t>(kernel.launch)].start_ns;
    if (!iterations.inSteadyIteration(asked)) continue;
    const TensorCoreVerdict& v = verdicts.of(kernel);
    bool under_eligible_op = false;
    if (kernel.op_range != trace::kNone) {
      std::int8_t& known = eligible[static_cast<std::size_t>(kernel.op_range)];
      if (known < 0) known = enclosingEligibleOp(trace, kernel.op_range, false) != trace::kNone ? 1 : 0;
      under_eligible_op = known == 1;
    }
    const bool half = v.precision == MathPrecision::kFp16 || v.precision == MathPrecision::kBf16 ||
                      v.precision == MathPrecision::kFp8 || v.precision == MathPrecision::kFp4;
    half_precision_seen |= v.tensor_core && half;
    StepPartKind kind = StepPartKind::kMemoryBound;
    if (v.tensor_core && v.precision == MathPrecision::kTf32) kind = StepPartKind::kEligibleTf32Math;
    else if (v.tensor_core) kind = StepPartKind::kTensorCoreMath;
    else if (under_eligible_op && isMatrixKernel(v, true)) kind = StepPartKind::kEligibleFp32Math;
    kernel_part[index] = kind;
    time[slot(kind)] += kernel.end_ns - kernel.start_ns;
  }
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (iterations.inSteadyIteration(op.start_ns)) time[slot(StepPartKind::kMemcpy)] += op.end_ns - op.start_ns;
  }
  // Kernel times add up over concurrent streams; scale the parts to the GPU's busy time so that
  // they and the idle time add up to the step.
  const GpuActivity gpu(trace);
  std::int64_t busy = 0;
  std::int64_t step_total = 0;
  for (const Iteration& it : iterations.iterations) {
    if (it.warmup) continue;
    busy += gpu.busyWithin(it.start_ns, it.end_ns);
    step_total += it.durationNs();
  }
  const auto steps = static_cast<std::int64_t>(iterations.steadyCount());
  std::int64_t summed = 0;
  for (std::int64_t t : time) summed += t;
  const double scale = summed > 0 ? static_cast<double>(std::min(busy, step_total)) / static_cast<double>(summed) : 0.0;
  const double step_ns = static_cast<double>(step_total) / static_cast<double>(steps);
  const DevicePeaks& p = out.device;
  std::array<double, kStepPartKinds.size()> speedup{};
  speedup.fill(1.0);
  speedup[slot(StepPartKind::kEligibleFp32Math)] = p.fp16_tflops / p.fp32_tflops;
  speedup[slot(StepPartKind::kEligibleTf32Math)] = p.tf32_tflops > 0 ? p.fp16_tflops / p.tf32_tflops : 1.0;
  // Memory-bound work moves half the bytes in FP16/BF16, unless the model already runs in them.
  speedup[slot(StepPartKind::kMemoryBound)] = half_precision_seen ? 1.0 : 2.0;
  double projected_time = 0;
  double ceiling_time = 0;
  double accounted = 0;
  for (StepPartKind kind : kStepPartKinds) {
    if (kind == StepPartKind::kIdle) continue;
    const double ns = static_cast<double>(time[slot(kind)]) * scale / static_cast<double>(steps);
    accounted += ns;
    out.parts.push_back({kind, static_cast<std::int64_t>(ns), ns / step_ns, speedup[slot(kind)]});
    projected_time += ns / speedup[slot(kind)];
    if (!isMatrixMath(kind)) ceiling_time += ns / speedup[slot(kind)];
  }
  const double idle = std::max(0.0, step_ns - accounted);
  out.parts.push_back({StepPartKind::kIdle, static_cast<std::int64_t>(idle), idle / step_ns, 1.0});
  projected_time += idle;
  ceiling_time += idle;
  out.projected_speedup = projected_time > 0 ? step_ns / projected_time : 1.0;
  out.ceiling = ceiling_time > 0 ? step_ns / ceiling_time : 1.0;

  // The same speedups replayed against the host's recorded launch times.
  ReplayScenario amp;
  ReplayScenario free_math;
  amp.kernel_speedup.resize(trace.kernels.size(), 1.0);
  free_math.kernel_speedup.resize(trace.kernels.size(), 1.0);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    if (!kernel_part[i]) continue;
    const StepPartKind kind = *kernel_part[i];
    amp.kernel_speedup[i] = speedup[slot(kind)];
    free_math.kernel_speedup[i] = isMatrixMath(kind) ? std::numeric_limits<double>::infinity() : speedup[slot(kind)];
  }
  out.replay = replaySteadySteps(trace, iterations, amp);
  out.replay_ceiling = replaySteadySteps(trace, iterations, free_math);
  return out;
}

}  // namespace ampscope::analyzer
