#include "analyzer/model/op_performance.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/core/memo_by_id.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/core/time_by_kind.h"
#include "analyzer/correlate/layer_attribution.h"
#include "analyzer/model/amp_op_policy.h"
#include "analyzer/model/convolution_output.h"
#include "analyzer/verdicts/kernel_verdicts.h"

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


// A row: an op (by name id, so that ids of equal text are equal) and what it was called with.
struct Key {
  StringId op;
  StringId shapes;
  StringId strides;  // a layout is part of the call: it decides which dimensions must align
  StringId arguments;
  StringId layer;
  trace::Phase pass;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::uint64_t h = k.op;
    for (const std::uint64_t part : {std::uint64_t{k.shapes}, std::uint64_t{k.strides}, std::uint64_t{k.arguments}, std::uint64_t{k.layer},
                                     static_cast<std::uint64_t>(k.pass)}) {
      h = (h ^ part) * 0x100000001b3ULL;
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct Accumulated {
  Key key;
  std::uint64_t calls = 0;  // distinct op ranges whose work it is
  Index example = kNone;
  StringId dtypes = trace::StringTable::kEmpty;
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;
  std::int64_t tensor_core_ns = 0;
  std::int64_t collective_ns = 0;
  std::int64_t matrix_ns = 0;
  PrecisionTimes precision_ns;  // of matrix kernels (all kernels when none is)
  PrecisionTimes any_precision_ns;
  TimeByKind<GemmKernelFamily, kGemmKernelFamilyCount> family_ns;  // of matrix kernels
};

// The rows kernels add up to, in the order first met. A run launches millions of kernels from
// about as many op ranges, into a few hundred rows: each op range finds its row once, by a flat
// index, and no string is built per kernel.
class RowAccumulator {
 public:
  explicit RowAccumulator(const trace::Trace& trace) : trace_(trace), row_of_op_(trace.ranges.size(), -1) {}

  // The row of a kernel no op launched: its name's.
  std::size_t ofKernelName(StringId name) {
    return rowFor(Key{name, trace::StringTable::kEmpty, trace::StringTable::kEmpty, trace::StringTable::kEmpty,
                      trace::StringTable::kEmpty, trace::Phase::kUnknown});
  }

  // The row of the op whose work a kernel did (workOp); each op counts as one call of its row.
  std::size_t ofWorkOp(Index op) {
    std::int32_t& memo = row_of_op_[static_cast<std::size_t>(op)];
    if (memo < 0) {
      const trace::Range& r = trace_.ranges[static_cast<std::size_t>(op)];
      memo = static_cast<std::int32_t>(rowFor(Key{opNameId(r), r.shapes, r.strides, r.arguments, r.layer, r.phase}));
      Accumulated& a = rows_[static_cast<std::size_t>(memo)];
      ++a.calls;
      if (a.example == kNone) {
        a.example = op;
        a.dtypes = r.dtypes;
      }
    }
    return static_cast<std::size_t>(memo);
  }

  Accumulated& operator[](std::size_t row) { return rows_[row]; }

  // Row indices by op name, then by the ids of the rest of the key: the order rows are built in
  // (and keep on equal time).
  std::vector<std::size_t> keyOrder() const {
    std::vector<std::size_t> order(rows_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      const Key& a = rows_[x].key;
      const Key& b = rows_[y].key;
      if (a.op != b.op) return trace_.str(a.op) < trace_.str(b.op);
      return std::tie(a.shapes, a.strides, a.arguments, a.layer, a.pass) < std::tie(b.shapes, b.strides, b.arguments, b.layer, b.pass);
    });
    return order;
  }

 private:
  std::size_t rowFor(const Key& key) {
    auto [found, fresh] = index_of_key_.try_emplace(key, rows_.size());
    if (fresh) {
      rows_.emplace_back();
      rows_.back().key = key;
    }
    return found->second;
  }

  const trace::Trace& trace_;
  std::vector<Accumulated> rows_;
  std::unordered_map<Key, std::size_t, KeyHash> index_of_key_;
  std::vector<std::int32_t> row_of_op_;  // by work op range: its row, -1 not yet met
};

class RowBuilder {
 public:
  RowBuilder(const trace::Trace& trace, const DeviceChoice& device, bool recorded_on_cpu, bool run_uses_half)
      : trace_(trace), device_(device.spec.get()), lower_bound_(device.lowerBound()), on_cpu_(recorded_on_cpu), run_uses_half_(run_uses_half) {}

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
    const std::optional<Shapes> strides = parseShapes(trace_.str(example->strides));
    OpCall call;
    call.op = row.op;
    call.shapes = shapes ? &*shapes : nullptr;
    call.strides = strides ? &*strides : nullptr;
    call.dtypes = &trace_.range_values.dtypes(a.dtypes);
    call.arguments = &trace_.range_values.arguments(example->arguments);
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
      if (tflops > bound_tflops && lower_bound_) {
        // The device is a guess the GPU is at least: above its peak, the GPU is newer, not the work wrong.
        row.achieved_tflops = tflops;
        row.rate_note = fmt::format(
            "{:.1f} TFLOP/s is above the {}'s {} peak of {:.1f}: the GPU is newer than its kernel names prove "
            "(name it with --gpu NAME)",
            tflops, device_->name, row.peak_tflops > 0 ? precisionName(row.precision) : "highest", bound_tflops);
      } else if (tflops > bound_tflops) {
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
      // Unknown bandwidth (0: a derived spec whose trace records none) and a lower-bound guess
      // bound nothing.
      if (device_->memory_gbs > 0 && !lower_bound_ && gbs > device_->memory_gbs) {
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
      // From Hopper on, cuBLASLt runs a half-precision GEMM as one kernel, with its bias epilogue
      // and split-K inside, where an FP32 call may be three (GEMM, split-K reduce, bias): every
      // BF16 mm/addmm call of the H100 traces in tests/data/h100 is one kernel.
      const int amp_kernels = device_->compute_major >= 9 && !row.work.gemm->convolution ? 1 : kernels_per_call;
      const double amp_bytes = bytes * 2.0 / element;
      const auto now = estimateMatrixTime(*device_, measured, *row.work.gemm, *row.work.flops, bytes, kernels_per_call);
      const auto amp = estimateMatrixTime(*device_, target, *row.work.gemm, *row.work.flops, amp_bytes, amp_kernels);
      if (now && now->ns > 0) {
        const double per_call = std::max(1.0, static_cast<double>(row.timePerCall()));
        // How far the op ran from the model of the precision it ran in (above 1: slower). What
        // all kernels share (the clock, the memory system, the model's error for the shape)
        // carries into the predicted time: the model's ratio applies to the measured time.
        const double shortfall = per_call / now->ns;
        // Never faster than the peak ratio, nor than its kernels' floor or its bytes at the
        // datasheet bandwidth (where the device's is known: a derived device's trace may not
        // record it), nor slower than it ran.
        const auto speedupOf = [&](const TimeEstimate& estimate, double carried, double target_bytes, int kernels, double ratio) {
          const double bytes_ns = device_->memory_gbs > 0 ? target_bytes / (device_->memory_gbs * 1e9) * 1e9 : 0.0;
          const double floor_ns = std::max(kernels * timeModelConstants().kernel_floor_ns, bytes_ns);
          return std::clamp(per_call / std::max(estimate.ns * carried, floor_ns), 1.0, std::max(1.0, ratio));
        };
        // TF32 kernels of small shapes fall short as the FP32 ones do (docs/performance_model.md):
        // the ratio.
        if (measured == MathPrecision::kFp32Simt && device_->tf32_tflops > 0) {
          const auto tf32 = estimateMatrixTime(*device_, MathPrecision::kTf32, *row.work.gemm, *row.work.flops, bytes, kernels_per_call);
          if (tf32 && tf32->ns > 0) {
            row.tf32_speedup = speedupOf(*tf32, shortfall, bytes, kernels_per_call, device_->tf32_tflops / device_->fp32_tflops);
          }
        }
        // Where the FP32 kernels cuBLAS chose for a small or skinny shape are the slow part
        // (gemm_kernel_family.h), the FP16/BF16 kernels do not share their shortfall: their time
        // is their own model's, scaled only by an FP32 time below the model.
        const bool fp32_short =
            measured == MathPrecision::kFp32Simt && fp32PathFallsShort(row.kernel_family, *row.work.gemm, device_->sm_count);
        const double carried = fp32_short ? std::min(shortfall, 1.0) : shortfall;
        if (amp && amp->ns > 0) {
          const std::string carry_note =
              fp32_short && shortfall > 1.0
                  ? fmt::format("; its FP32 kernels ({}) fall short of the model on this shape where {} kernels do not: "
                                "{} at its own model's time",
                                gemmKernelFamilyName(row.kernel_family), precisionName(target), precisionName(target))
                  : std::string();
          return predict(AmpChange::kTensorCores, speedupOf(*amp, carried, amp_bytes, amp_kernels, peak_ratio),
                         fmt::format("{} model {:.1f} us -> {} {:.1f} us per call ({}-bound, {:.0f}% of peak, tiles {:.0f}% padding); "
                                     "measured {:.1f} us ({:.0f}% of the model){}",
                                     precisionName(measured), now->ns / 1e3, precisionName(target), amp->ns / 1e3,
                                     roofBoundName(amp->bound), 100.0 * amp->efficiency, 100.0 * amp->tile_waste, per_call / 1e3,
                                     100.0 * shortfall, carry_note));
        }
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
  bool lower_bound_;  // the device is one the GPU is at least (a guess from kernel names)
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

namespace {

// The row's key op for a kernel: the innermost Tensor-Core-eligible op with shapes above it when
// the kernel is matrix work, else the innermost op that launched it; kNone when none.
Index workOp(const KernelOrigin* origin, const TensorCoreVerdict& verdict) {
  if (!origin) return kNone;
  if (isMatrixKernel(verdict, true)) {
    if (origin->shaped_op != kNone) return origin->shaped_op;
    if (origin->eligible_op != kNone) return origin->eligible_op;
  }
  return origin->op_range;
}

// The rows in the order a caller reads them, heaviest first, each with its work and rates; fills
// row_of_kernel from the accumulator's rows.
std::vector<OpRow> buildRows(const trace::Trace& trace, RowAccumulator& rows, RowBuilder& builder,
                             const std::vector<std::int32_t>& accumulated_row_of_kernel,
                             std::vector<std::int32_t>& row_of_kernel) {
  const std::vector<std::size_t> key_order = rows.keyOrder();
  std::vector<OpRow> built;
  built.reserve(key_order.size());
  for (const std::size_t index : key_order) {
    const Accumulated& a = rows[index];
    OpRow row;
    row.op = std::string(trace.str(a.key.op));
    row.shapes = std::string(trace.str(a.key.shapes));
    row.strides = std::string(trace.str(a.key.strides));
    row.arguments = std::string(trace.str(a.key.arguments));
    row.layer = std::string(trace.str(a.key.layer));
    row.pass = a.key.pass;
    row.dtypes_text = std::string(trace.str(a.dtypes));
    row.calls = std::max<std::uint64_t>(1, a.calls);
    row.kernels = a.kernels;
    row.time_ns = a.time_ns;
    if (a.example != kNone) row.first_start_ns = trace.ranges[static_cast<std::size_t>(a.example)].start_ns;
    row.tensor_core_time_ns = a.tensor_core_ns;
    row.precision = (a.precision_ns.empty() ? a.any_precision_ns : a.precision_ns).heaviest();
    row.kernel_family = a.family_ns.heaviest(/*skip_first=*/true);
    if (a.collective_ns * 2 > a.time_ns || isCollectiveOp(row.op)) row.op_class = OpClass::kCommunication;
    else if (a.matrix_ns * 2 > a.time_ns && isTensorCoreEligibleOp(row.op)) row.op_class = OpClass::kMatrix;
    builder.fillWork(row, a);
    if (row.op_class == OpClass::kMemory && row.work.matrix && a.matrix_ns > 0) row.op_class = OpClass::kMatrix;
    builder.measure(row);
    builder.project(row);
    built.push_back(std::move(row));
  }
  // Heaviest first; kernels keep pointing at their rows.
  std::vector<std::size_t> order(built.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return built[x].time_ns > built[y].time_ns; });
  std::vector<std::int32_t> final_index(order.size());  // by accumulator row
  std::vector<OpRow> sorted;
  sorted.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    final_index[key_order[order[i]]] = static_cast<std::int32_t>(i);
    sorted.push_back(std::move(built[order[i]]));
  }
  for (std::size_t k = 0; k < accumulated_row_of_kernel.size(); ++k) {
    row_of_kernel[k] = final_index[static_cast<std::size_t>(accumulated_row_of_kernel[k])];
  }
  return sorted;
}

}  // namespace

OpPerformance measureOpPerformance(const trace::Trace& trace, const DeviceChoice& device, bool recorded_on_cpu,
                                   KernelVerdicts& verdicts, LayerAttribution& attribution, KernelOpRows& kernel_rows) {
  OpPerformance out;
  out.device = device;
  kernel_rows.row.assign(trace.kernels.size(), -1);
  kernel_rows.work_op.assign(trace.kernels.size(), kNone);
  RowAccumulator rows(trace);
  std::vector<std::int32_t> row_of_kernel(trace.kernels.size(), -1);  // into the accumulator's rows
  NameTest collective_name;  // a collective's kernel
  MemoById<std::int8_t, -1> family_of_name;
  bool run_uses_half = false;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    const trace::Kernel& kernel = trace.kernels[i];
    const TensorCoreVerdict& verdict = verdicts.of(kernel);
    const bool matrix = isMatrixKernel(verdict, true);
    run_uses_half |= verdict.tensor_core && isHalf(verdict.precision);
    const std::int32_t origin = attribution.originOf(kernel.op_range);
    const Index op = workOp(origin < 0 ? nullptr : &attribution.origins().origins[static_cast<std::size_t>(origin)], verdict);
    kernel_rows.work_op[i] = op;
    const std::size_t row = op == kNone ? rows.ofKernelName(kernel.name) : rows.ofWorkOp(op);
    row_of_kernel[i] = static_cast<std::int32_t>(row);
    Accumulated& a = rows[row];
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    ++a.kernels;
    a.time_ns += duration;
    if (verdict.tensor_core) a.tensor_core_ns += duration;
    if (collective_name(kernel.name, [&] { return isCollectiveKernel(trace.str(kernel.name)); })) a.collective_ns += duration;
    if (matrix) {
      a.matrix_ns += duration;
      a.precision_ns.add(verdict.precision, duration);
      a.family_ns.add(static_cast<GemmKernelFamily>(family_of_name.get(kernel.name, [&] {
                        return static_cast<std::int8_t>(gemmKernelFamily(trace.str(kernel.name)));
                      })),
                      duration);
    }
    a.any_precision_ns.add(verdict.precision, duration);
  }
  if (!device.spec && !recorded_on_cpu) {
    out.note = device.reason.empty() ? "the device is unknown: pass --gpu NAME" : device.reason;
  }

  RowBuilder builder(trace, device, recorded_on_cpu, run_uses_half);
  out.rows = buildRows(trace, rows, builder, row_of_kernel, kernel_rows.row);

  double matrix_ns = 0;
  double known_ns = 0;
  for (const OpRow& row : out.rows) {
    if (row.op_class != OpClass::kMatrix) continue;
    matrix_ns += static_cast<double>(row.time_ns);
    if (row.work.flops) known_ns += static_cast<double>(row.time_ns);
  }
  out.matrix_time_with_known_flops = matrix_ns > 0 ? known_ns / matrix_ns : 0.0;
  return out;
}

}  // namespace ampscope::analyzer
