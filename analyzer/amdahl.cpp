#include "analyzer/amdahl.h"

#include <limits>
#include <unordered_map>

#include "analyzer/gemm_shapes.h"
#include "analyzer/shape_checks.h"
#include "analyzer/gpu_activity.h"
#include "analyzer/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

enum class Part { kTensorCoreHalf, kEligibleFp32, kEligibleTf32, kMemoryBound, kOther };

}  // namespace

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
  std::unordered_map<trace::Index, bool> eligible;
  std::int64_t time[5] = {0, 0, 0, 0, 0};
  std::vector<Part> kernel_part(trace.kernels.size(), Part::kOther);  // kOther: outside the steady steps
  bool half_precision_seen = false;
  for (std::size_t index = 0; index < trace.kernels.size(); ++index) {
    const trace::Kernel& kernel = trace.kernels[index];
    // Attribute a kernel to the step whose host work launched it.
    const std::int64_t asked = kernel.launch == trace::kNone
                                   ? kernel.start_ns
                                   : trace.launches[static_cast<std::size_t>(kernel.launch)].start_ns;
    if (!iterations.inSteadyIteration(asked)) continue;
    const TensorCoreVerdict& v = verdicts.of(kernel);
    auto [is_eligible, new_op] = eligible.try_emplace(kernel.op_range, false);
    if (new_op && kernel.op_range != trace::kNone) is_eligible->second = enclosingEligibleOp(trace, kernel.op_range, false) != trace::kNone;
    const std::int64_t d = kernel.end_ns - kernel.start_ns;
    const bool half = v.precision == MathPrecision::kFp16 || v.precision == MathPrecision::kBf16 ||
                      v.precision == MathPrecision::kFp8 || v.precision == MathPrecision::kFp4;
    half_precision_seen |= v.tensor_core && half;
    Part& p = kernel_part[index];
    if (v.tensor_core && v.precision == MathPrecision::kTf32) p = Part::kEligibleTf32;
    else if (v.tensor_core) p = Part::kTensorCoreHalf;
    else if (v.precision == MathPrecision::kFp32Simt && is_eligible->second) p = Part::kEligibleFp32;
    else if (is_eligible->second && v.rule_id == "unknown-matrix") p = Part::kEligibleFp32;
    else p = Part::kMemoryBound;
    time[static_cast<int>(p)] += d;
  }
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (iterations.inSteadyIteration(op.start_ns)) time[static_cast<int>(Part::kOther)] += op.end_ns - op.start_ns;
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
  const double fp32_to_half = p.fp16_tflops / p.fp32_tflops;
  const double tf32_to_half = p.tf32_tflops > 0 ? p.fp16_tflops / p.tf32_tflops : 1.0;
  // Memory-bound work moves half the bytes in FP16/BF16, unless the model already runs in them.
  const double memory_speedup = half_precision_seen ? 1.0 : 2.0;
  const std::pair<const char*, double> parts[] = {
      {"math already on FP16/BF16 Tensor Cores", 1.0},
      {"eligible math in FP32 on CUDA cores", fp32_to_half},
      {"eligible math in TF32 on Tensor Cores", tf32_to_half},
      {"memory-bound and other kernels", memory_speedup},
      {"memcpy and memset", 1.0},
  };
  double projected_time = 0;
  double ceiling_time = 0;
  double accounted = 0;
  for (int i = 0; i < 5; ++i) {
    const double ns = static_cast<double>(time[i]) * scale / static_cast<double>(steps);
    accounted += ns;
    out.parts.push_back({parts[i].first, static_cast<std::int64_t>(ns), ns / step_ns, parts[i].second});
    projected_time += ns / parts[i].second;
    const bool math = i <= 2;
    if (!math) ceiling_time += ns / parts[i].second;
  }
  const double idle = std::max(0.0, step_ns - accounted);
  out.parts.push_back({"GPU idle: host, data loading, launch gaps", static_cast<std::int64_t>(idle), idle / step_ns, 1.0});
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
    const auto part_index = static_cast<std::size_t>(kernel_part[i]);
    amp.kernel_speedup[i] = parts[part_index].second;
    const bool math = part_index <= static_cast<std::size_t>(Part::kEligibleTf32);
    free_math.kernel_speedup[i] = math ? std::numeric_limits<double>::infinity() : parts[part_index].second;
  }
  out.replay = replaySteadySteps(trace, iterations, amp);
  out.replay_ceiling = replaySteadySteps(trace, iterations, free_math);
  return out;
}

}  // namespace ampscope::analyzer
