#include "analyzer/op_performance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "analyzer/amp_op_policy.h"
#include "analyzer/convolution_output.h"
#include "analyzer/kernel_verdicts.h"
#include "analyzer/operator_labels.h"
#include "analyzer/shape_checks.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;
using trace::StringId;

bool isHalf(MathPrecision p) {
  return p == MathPrecision::kFp16 || p == MathPrecision::kBf16 || p == MathPrecision::kFp8 || p == MathPrecision::kFp4;
}

int elementBytes(MathPrecision p) {
  switch (p) {
    case MathPrecision::kFp32Simt: case MathPrecision::kTf32: case MathPrecision::kFp32: return 4;
    case MathPrecision::kFp16: case MathPrecision::kBf16: return 2;
    case MathPrecision::kFp8: case MathPrecision::kInt8: return 1;
    case MathPrecision::kFp64: return 8;
    default: return 0;
  }
}

// The device's highest dense rate: no kernel of any precision goes faster.
double topPeak(const DeviceSpec& d) {
  return std::max({d.fp32_tflops, d.tf32_tflops, d.fp16_tflops, d.bf16_tflops, d.fp8_tflops, d.fp4_tflops, d.int8_tops, d.fp64_tflops});
}


struct Key {
  std::string op;
  StringId shapes;
  StringId arguments;
  StringId layer;
  trace::Phase pass;
  auto operator<=>(const Key&) const = default;
};

struct Accumulated {
  std::unordered_set<Index> ranges;
  Index example = kNone;
  StringId dtypes = trace::StringTable::kEmpty;
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;
  std::int64_t tensor_core_ns = 0;
  std::int64_t collective_ns = 0;
  std::int64_t matrix_ns = 0;
  std::map<MathPrecision, std::int64_t> precision_ns;  // of matrix kernels (all kernels when none is)
  std::map<MathPrecision, std::int64_t> any_precision_ns;
};

MathPrecision heaviest(const std::map<MathPrecision, std::int64_t>& by) {
  MathPrecision out = MathPrecision::kUnknown;
  std::int64_t most = -1;
  for (const auto& [p, ns] : by) {
    if (ns > most) {
      most = ns;
      out = p;
    }
  }
  return out;
}

class RowBuilder {
 public:
  RowBuilder(const trace::Trace& trace, const DeviceChoice& device, bool recorded_on_cpu, bool run_uses_half)
      : trace_(trace), device_(device.spec), on_cpu_(recorded_on_cpu), run_uses_half_(run_uses_half) {}

  // Convolutions recorded without their geometry need the trace around them; indexed once, on
  // first need.
  std::optional<InferredOutput> inferOutput(Index range) {
    if (!inference_) inference_.emplace(trace_);
    return inference_->infer(range);
  }

  void fillWork(OpRow& row, const Accumulated& a) {
    const trace::Range* example = a.example == kNone ? nullptr : &trace_.ranges[static_cast<std::size_t>(a.example)];
    if (!example) {
      row.work.note = "no operator launched it";
      return;
    }
    const std::optional<Shapes> shapes = parseShapes(trace_.str(example->shapes));
    OpCall call;
    call.op = row.op;
    call.shapes = shapes ? &*shapes : nullptr;
    call.dtypes = trace_.str(a.dtypes);
    call.arguments = trace_.str(example->arguments);
    call.element_bytes_fallback = elementBytes(row.precision);
    // The trainer records a layer's backward under its forward op's name and shapes: the work is
    // the backward of that op (data and weight gradients).
    call.backward_pass = example->text_form == trace::RangeTextForm::kTrainerLayerOp && row.pass == trace::Phase::kBackward;
    row.work = opWork(call);
    // A convolution recorded without its geometry: its output from the trace around it.
    if (!row.work.flops && row.work.matrix && shapes) {
      if (const std::optional<InferredOutput> inferred = inferOutput(a.example)) {
        call.output_shape = inferred->shape;
        call.output_basis = inferred->basis;
        row.work = opWork(call);
      }
    }
    // A convolution's separate data- or weight-gradient op (PyTorch 1.8's cuDNN ops) records the
    // size it produces as a list, not a shape: the forward op its autograd node is linked to has it.
    if ((!row.work.flops || !row.work.bytes) && shapes) {
      const bool input_grad = row.op.ends_with("_backward_input");
      const bool weight_grad = row.op.ends_with("_backward_weight");
      if (input_grad || weight_grad) {
        if (const std::optional<Shapes> forward = forwardShapes(a.example); forward && forward->size() >= 2) {
          call.output_shape = (*forward)[weight_grad ? 1 : 0];
          call.output_basis = WorkBasis::kShapes;
          if (!call.output_shape.empty()) row.work = opWork(call);
        }
      }
    }
  }

  // The input shapes of the forward op that a backward op's autograd node is linked to.
  std::optional<Shapes> forwardShapes(Index range) const {
    for (Index r = range; r != kNone; r = trace_.ranges[static_cast<std::size_t>(r)].parent) {
      const Index forward = trace_.ranges[static_cast<std::size_t>(r)].forward_range;
      if (forward == kNone) continue;
      return parseShapes(trace_.str(trace_.ranges[static_cast<std::size_t>(forward)].shapes));
    }
    return std::nullopt;
  }

  void measure(OpRow& row) const {
    if (on_cpu_) {
      row.rate_note = "host work on the CPU: no GPU peak applies (see the what-if projection)";
      return;
    }
    if (!device_) {
      row.rate_note = "the device is unknown";
      return;
    }
    const double seconds = static_cast<double>(row.time_ns) * 1e-9;
    const double calls = static_cast<double>(row.calls);
    const bool precision_known = row.precision != MathPrecision::kUnknown;
    row.peak_tflops = precision_known ? peakTflops(*device_, row.precision) : 0.0;
    const double bound_tflops = row.peak_tflops > 0 ? row.peak_tflops : topPeak(*device_);
    if (row.work.flops && *row.work.flops > 0 && seconds > 0) {
      const double tflops = *row.work.flops * calls / seconds / 1e12;
      if (tflops > bound_tflops) {
        row.work_above_peak = true;
        row.rate_note = fmt::format(
            "the recorded work gives {:.1f} TFLOP/s, above the {}'s {} peak of {:.1f}: a shape or argument is wrong, "
            "or the kernel does less arithmetic than the op's direct FLOPs (Winograd, FFT); rate unknown",
            tflops, device_->name, row.peak_tflops > 0 ? precisionName(row.precision) : "highest", bound_tflops);
      } else {
        row.achieved_tflops = tflops;
      }
    }
    if (row.work.bytes && *row.work.bytes > 0 && seconds > 0) {
      const double gbs = *row.work.bytes * calls / seconds / 1e9;
      if (gbs > device_->memory_gbs) {
        if (row.rate_note.empty()) {
          row.rate_note = fmt::format("{:.0f} GB/s from the recorded bytes is above the {}'s {:.0f} GB/s DRAM bandwidth: "
                                      "served from cache, or the bytes are wrong (bandwidth unknown)", gbs, device_->name,
                                      device_->memory_gbs);
        }
      } else {
        row.achieved_gbs = gbs;
      }
    }
    if (row.work.flops && row.work.bytes && *row.work.bytes > 0 && row.achieved_tflops) {
      row.intensity = *row.work.flops / *row.work.bytes;
      row.bound = roofBound(*device_, precision_known ? row.precision : MathPrecision::kFp32Simt, *row.intensity);
    } else if (row.op_class == OpClass::kMemory && row.work.bytes) {
      row.bound = RooflineBound::kMemory;
    }
  }

  void project(OpRow& row) const {
    if (on_cpu_ || !device_) {
      row.amp = AmpChange::kNotProjected;
      row.amp_note = on_cpu_ ? "a CPU run: see the what-if projection" : "the device is unknown";
      return;
    }
    const double time = static_cast<double>(row.time_ns);
    const auto predict = [&](AmpChange change, double speedup, std::string note) {
      row.amp = change;
      row.amp_speedup = std::max(1.0, speedup);
      row.predicted_amp_ns = static_cast<std::int64_t>(std::llround(time / row.amp_speedup));
      row.amp_note = std::move(note);
    };
    if (row.op_class == OpClass::kCommunication) {
      return predict(AmpChange::kCommunication, 1.0, "collectives reduce FP32 gradients under AMP");
    }
    if (isHalf(row.precision) || dtypesAreHalf(row.dtypes_text)) {
      return predict(AmpChange::kAlreadyHalf, 1.0, "already runs in half precision");
    }
    if (row.op_class == OpClass::kMatrix) return projectMatrix(row, predict);
    if (updatesMasterWeights(row.op, row.pass)) {
      return predict(AmpChange::kKeptFp32, 1.0, "the optimizer updates FP32 master weights");
    }
    if (autocastKeepsFp32(row.op)) return predict(AmpChange::kKeptFp32, 1.0, "autocast runs it in FP32");
    if (run_uses_half_) {
      return predict(AmpChange::kAlreadyHalf, 1.0, "the run already uses half precision: its tensors are already half");
    }
    // Memory-bound work: the part of each kernel above its fixed cost moves half the bytes.
    const TimeModelConstants& c = timeModelConstants();
    const double kernels = static_cast<double>(row.kernels);
    const double per_kernel = time / std::max(1.0, kernels);
    const double halved = std::max(c.kernel_floor_ns, c.kernel_ramp_ns + std::max(0.0, per_kernel - c.kernel_ramp_ns) / 2.0);
    predict(AmpChange::kHalvedBytes, per_kernel / std::min(per_kernel, halved) , "half the bytes above each kernel's fixed cost");
  }

 private:
  template <typename Predict>
  void projectMatrix(OpRow& row, const Predict& predict) const {
    const MathPrecision measured = row.precision == MathPrecision::kTf32 ? MathPrecision::kTf32 : MathPrecision::kFp32Simt;
    const MathPrecision target = ampPrecision(*device_);
    const double peak_ratio = peakTflops(*device_, target) / peakTflops(*device_, measured);
    const int kernels_per_call = static_cast<int>(std::max<std::uint64_t>(1, (row.kernels + row.calls / 2) / std::max<std::uint64_t>(1, row.calls)));
    if (row.work.flops && row.work.gemm) {
      const double bytes = row.work.bytes.value_or(0.0);
      const int element = elementBytes(measured);
      const auto now = estimateMatrixTime(*device_, measured, *row.work.gemm, *row.work.flops, bytes, kernels_per_call);
      const auto amp = estimateMatrixTime(*device_, target, *row.work.gemm, *row.work.flops, bytes * 2.0 / element, kernels_per_call);
      if (measured == MathPrecision::kFp32Simt && device_->tf32_tflops > 0 && now) {
        const auto tf32 = estimateMatrixTime(*device_, MathPrecision::kTf32, *row.work.gemm, *row.work.flops, bytes, kernels_per_call);
        if (tf32 && tf32->ns > 0) row.tf32_speedup = std::clamp(now->ns / tf32->ns, 1.0, device_->tf32_tflops / device_->fp32_tflops);
      }
      if (now && amp && amp->ns > 0) {
        const double speedup = std::clamp(now->ns / amp->ns, 1.0, peak_ratio);
        const double fit = now->ns / std::max(1.0, static_cast<double>(row.timePerCall()));
        return predict(AmpChange::kTensorCores, speedup,
                       fmt::format("{} model {:.1f} us -> {} {:.1f} us per call ({}-bound, {:.0f}% of peak, tiles {:.0f}% padding); "
                                   "measured {:.1f} us ({:.0f}% of the model)",
                                   precisionName(measured), now->ns / 1e3, precisionName(target), amp->ns / 1e3,
                                   roofBoundName(amp->bound), 100.0 * amp->efficiency, 100.0 * amp->tile_waste,
                                   static_cast<double>(row.timePerCall()) / 1e3, 100.0 / std::max(1e-9, fit)));
      }
    }
    // Work unknown: between the small-GEMM gain and the peak ratio, on a log scale.
    if (measured == MathPrecision::kFp32Simt && device_->tf32_tflops > 0) {
      const double tf32_ratio = device_->tf32_tflops / device_->fp32_tflops;
      row.tf32_speedup = std::sqrt(std::min(2.0, tf32_ratio) * tf32_ratio);
    }
    const double low = std::min(2.0, peak_ratio);
    predict(AmpChange::kTensorCoresUnknownWork, std::sqrt(low * peak_ratio),
            fmt::format("work unknown ({}): {:.1f}x, the geometric midpoint of {:.0f}x (small GEMMs) and the {:.1f}x peak ratio",
                        row.work.note.empty() ? "no shapes recorded" : row.work.note, std::sqrt(low * peak_ratio), low, peak_ratio));
  }

  const trace::Trace& trace_;
  const DeviceSpec* device_;
  bool on_cpu_;
  bool run_uses_half_;
  std::optional<ConvolutionOutputInference> inference_;
};

}  // namespace

const char* opClassName(OpClass op_class) {
  switch (op_class) {
    case OpClass::kMatrix: return "matrix";
    case OpClass::kCommunication: return "communication";
    case OpClass::kMemory: break;
  }
  return "memory";
}

const char* ampChangeName(AmpChange change) {
  switch (change) {
    case AmpChange::kAlreadyHalf: return "already_half";
    case AmpChange::kTensorCores: return "tensor_cores";
    case AmpChange::kTensorCoresUnknownWork: return "tensor_cores_unknown_work";
    case AmpChange::kHalvedBytes: return "halved_bytes";
    case AmpChange::kKeptFp32: return "kept_fp32";
    case AmpChange::kCommunication: return "communication";
    case AmpChange::kNotProjected: break;
  }
  return "not_projected";
}

Index workOpOf(const trace::Trace& trace, const trace::Kernel& kernel, const TensorCoreVerdict& verdict) {
  if (kernel.op_range == kNone) return kNone;
  if (isMatrixKernel(verdict, true)) {
    Index eligible = enclosingEligibleOp(trace, kernel.op_range, true);
    if (eligible == kNone) eligible = enclosingEligibleOp(trace, kernel.op_range, false);
    if (eligible != kNone) return eligible;
  }
  return kernel.op_range;
}

OpPerformance measureOpPerformance(const trace::Trace& trace, const IterationSummary& iterations,
                                   const DeviceChoice& device, bool recorded_on_cpu,
                                   const TensorCoreEvidence* evidence) {
  OpPerformance out;
  out.device = device;
  out.row_of_kernel.assign(trace.kernels.size(), -1);
  KernelVerdicts verdicts(trace, evidence);
  std::map<Key, Accumulated> rows;
  std::vector<const Key*> key_of_kernel(trace.kernels.size(), nullptr);
  // A run launches millions of kernels over far fewer op ranges and names: the row of each is
  // found once. Map nodes do not move.
  struct Slot {
    Index op = kNone;
    const Key* key = nullptr;
    Accumulated* row = nullptr;
  };
  std::unordered_map<std::uint64_t, Slot> by_op_range;  // (op range, matrix kernel) -> its row
  std::unordered_map<trace::StringId, Slot> by_kernel_name;  // kernels no op launched
  std::unordered_map<trace::StringId, bool> collective_name;
  const auto slotFor = [&](const trace::Kernel& kernel, const TensorCoreVerdict& verdict, bool matrix) -> const Slot& {
    if (kernel.op_range == kNone) {
      auto [slot, fresh] = by_kernel_name.try_emplace(kernel.name);
      if (fresh) {
        auto it = rows.try_emplace(Key{std::string(trace.str(kernel.name)), trace::StringTable::kEmpty,
                                       trace::StringTable::kEmpty, trace::StringTable::kEmpty, trace::Phase::kUnknown}).first;
        slot->second = {kNone, &it->first, &it->second};
      }
      return slot->second;
    }
    const std::uint64_t memo_key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(kernel.op_range)) << 1) | (matrix ? 1u : 0u);
    auto [slot, fresh] = by_op_range.try_emplace(memo_key);
    if (fresh) {
      const Index op = workOpOf(trace, kernel, verdict);
      const trace::Range& r = trace.ranges[static_cast<std::size_t>(op)];
      auto it = rows.try_emplace(Key{std::string(opName(trace, r)), r.shapes, r.arguments, r.layer, r.phase}).first;
      Accumulated& a = it->second;
      a.ranges.insert(op);
      if (a.example == kNone) {
        a.example = op;
        a.dtypes = r.dtypes;
      }
      slot->second = {op, &it->first, &a};
    }
    return slot->second;
  };
  bool run_uses_half = false;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    const TensorCoreVerdict& verdict = verdicts.of(kernel);
    const bool matrix = isMatrixKernel(verdict, true);
    run_uses_half |= verdict.tensor_core && isHalf(verdict.precision);
    const Slot& slot = slotFor(kernel, verdict, matrix);
    Accumulated& a = *slot.row;
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    ++a.kernels;
    a.time_ns += duration;
    if (verdict.tensor_core) a.tensor_core_ns += duration;
    auto [collective, fresh] = collective_name.try_emplace(kernel.name, false);
    if (fresh) collective->second = isCollectiveKernel(trace.str(kernel.name));
    if (collective->second) a.collective_ns += duration;
    if (matrix) {
      a.matrix_ns += duration;
      a.precision_ns[verdict.precision] += duration;
    }
    a.any_precision_ns[verdict.precision] += duration;
    key_of_kernel[i] = slot.key;
  }
  if (!device.spec && !recorded_on_cpu) {
    out.note = device.reason.empty() ? "the device is unknown: pass --gpu NAME" : device.reason;
  }

  RowBuilder builder(trace, device, recorded_on_cpu, run_uses_half);
  std::map<const Key*, std::size_t> index_of;
  for (const auto& [key, a] : rows) {
    OpRow row;
    row.op = key.op;
    row.shapes = std::string(trace.str(key.shapes));
    row.arguments = std::string(trace.str(key.arguments));
    row.layer = std::string(trace.str(key.layer));
    row.pass = key.pass;
    row.dtypes_text = std::string(trace.str(a.dtypes));
    row.calls = std::max<std::uint64_t>(1, a.ranges.size());
    row.kernels = a.kernels;
    row.time_ns = a.time_ns;
    if (a.example != kNone) row.first_start_ns = trace.ranges[static_cast<std::size_t>(a.example)].start_ns;
    row.tensor_core_time_ns = a.tensor_core_ns;
    row.precision = heaviest(a.precision_ns.empty() ? a.any_precision_ns : a.precision_ns);
    if (a.collective_ns * 2 > a.time_ns || isCollectiveOp(key.op)) row.op_class = OpClass::kCommunication;
    else if (a.matrix_ns * 2 > a.time_ns && isTensorCoreEligibleOp(key.op)) row.op_class = OpClass::kMatrix;
    builder.fillWork(row, a);
    if (row.op_class == OpClass::kMemory && row.work.matrix && a.matrix_ns > 0) row.op_class = OpClass::kMatrix;
    builder.measure(row);
    builder.project(row);
    index_of[&key] = out.rows.size();
    out.rows.push_back(std::move(row));
  }
  // Heaviest first; kernels keep pointing at their rows.
  std::vector<std::size_t> order(out.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return out.rows[x].time_ns > out.rows[y].time_ns; });
  std::vector<std::int32_t> new_index(order.size());
  std::vector<OpRow> sorted;
  sorted.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = static_cast<std::int32_t>(i);
    sorted.push_back(std::move(out.rows[order[i]]));
  }
  out.rows = std::move(sorted);
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    if (key_of_kernel[i]) out.row_of_kernel[i] = new_index[index_of.at(key_of_kernel[i])];
  }

  // FLOPs per steady step (the whole trace when it has no steps) and their share of the peak.
  double matrix_ns = 0;
  double known_ns = 0;
  for (const OpRow& row : out.rows) {
    if (row.op_class != OpClass::kMatrix) continue;
    matrix_ns += static_cast<double>(row.time_ns);
    if (row.work.flops) known_ns += static_cast<double>(row.time_ns);
  }
  out.matrix_time_with_known_flops = matrix_ns > 0 ? known_ns / matrix_ns : 0.0;
  std::unordered_set<Index> counted;
  double flops = 0;
  const bool steps = iterations.steadyCount() > 0 && iterations.steady_mean_ns > 0;
  const SteadySpans steady(iterations);
  std::int64_t first = 0;
  std::int64_t last = 0;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    const std::int32_t r = out.row_of_kernel[i];
    if (r < 0) continue;
    const std::int64_t asked = kernel.launch == kNone ? kernel.start_ns : trace.launches[static_cast<std::size_t>(kernel.launch)].start_ns;
    if (steps && !steady.contains(asked)) continue;
    first = first == 0 ? kernel.start_ns : std::min(first, kernel.start_ns);
    last = std::max(last, kernel.end_ns);
    const OpRow& row = out.rows[static_cast<std::size_t>(r)];
    if (!row.work.flops || kernel.op_range == kNone) continue;
    // One call's FLOPs per op range, however many kernels it launched.
    const std::uint64_t memo_key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(kernel.op_range)) << 1) |
                                   (isMatrixKernel(verdicts.of(kernel), true) ? 1u : 0u);
    if (counted.insert(by_op_range.at(memo_key).op).second) flops += *row.work.flops;
  }
  const double window_ns = steps ? static_cast<double>(iterations.steady_mean_ns) * static_cast<double>(iterations.steadyCount())
                                 : static_cast<double>(last - first);
  const double windows = steps ? static_cast<double>(iterations.steadyCount()) : 1.0;
  out.flops_per_step = flops / windows;
  out.per_step = steps;
  out.window_ns = static_cast<std::int64_t>(window_ns / windows);
  if (device.spec && !recorded_on_cpu && window_ns > 0 && flops > 0) {
    out.utilisation_precision = ampPrecision(*device.spec);
    const double peak = peakTflops(*device.spec, out.utilisation_precision) * 1e12;
    if (peak > 0) out.model_flop_utilisation = flops / (window_ns * 1e-9) / peak;
  }
  return out;
}

}  // namespace ampscope::analyzer
