#include "analyzer/advice/recommendations.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "analyzer/advice/attention_advice.h"
#include "analyzer/advice/communication_advice.h"
#include "analyzer/advice/padding_findings.h"
#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {

namespace {

std::string ms(std::int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
std::string gib(std::int64_t bytes) { return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)); }

class Recommender {
 public:
  // Gains are per steady step; a trace without steps gets them over its window of GPU work.
  explicit Recommender(const TraceSummary& s)
      : s_(s), step_ns_(s.iterations.steady_mean_ns > 0 ? s.iterations.steady_mean_ns : s.amdahl.window_ns) {}

  std::vector<Recommendation> run() {
    recommendAmp();
    recommendTf32();
    recommendPadding();
    recommendFusedAttention();
    recommendInputPipeline();
    recommendPinnedCopies();
    recommendLaunchBound();
    recommendHostBound();
    recommendSynchronousCalls();
    recommendLargerBatch();
    for (CommunicationAdvice& advice : adviseCommunication(s_, step_ns_)) {
      add(advice.rule, std::move(advice.target), std::move(advice.evidence), std::move(advice.action), advice.gain_ns);
    }
    recommendLossScaling();
    recommendMemoryHeadroom();
    noteMeasuredDisagreements();
    std::stable_sort(out_.begin(), out_.end(), [](const Recommendation& a, const Recommendation& b) {
      return a.estimated_gain_ns > b.estimated_gain_ns;
    });
    return out_;
  }

 private:
  // BF16 Tensor Cores arrived with Ampere (compute capability 8.0).
  bool supportsBf16() const {
    for (const DeviceSummary& d : s_.devices) {
      if (d.kernels > 0 && !d.compute_capability.empty()) return d.compute_capability[0] >= '8' || d.compute_capability.size() > 3;
    }
    return true;
  }

  const StepPart* part(StepPartKind kind) const { return s_.amdahl.part(kind); }

  // Matrix math worth a change: 2% of the step, or a tenth of the GPU's work (a trace whose window
  // is mostly copies or idle still shows what its kernels would gain).
  bool worthAdvising(const StepPart* p) const {
    if (!p) return false;
    std::int64_t gpu_work = 0;
    for (const StepPart& q : s_.amdahl.parts) {
      if (q.kind != StepPartKind::kIdle && q.kind != StepPartKind::kMemcpy) gpu_work += q.ns_per_step;
    }
    return p->fraction >= 0.02 || (gpu_work > 0 && p->ns_per_step * 10 >= gpu_work);
  }

  // "per step", or what a trace without steps measures gains over.
  std::string per() const {
    return s_.amdahl.per_step || s_.amdahl.parts.empty() ? "per step" : fmt::format("in the trace's {} window", ms(step_ns_));
  }

  // The heaviest FP32 CUDA-core matrix kernels, named: the evidence a user can find in a timeline.
  std::string fp32KernelNames() const {
    std::string names;
    int shown = 0;
    for (const KernelRow& k : s_.kernels) {
      if (k.verdict.tensor_core || k.verdict.precision != MathPrecision::kFp32Simt) continue;
      const std::string name = k.name.size() > 90 ? k.name.substr(0, 87) + "..." : k.name;
      names += fmt::format("{}{} {}", shown == 0 ? "" : "; ", name, ms(k.time_ns));
      if (++shown == 2) break;
    }
    return names.empty() ? "kernels of a family the rules do not know" : names;
  }

  void add(std::string_view rule, std::string target, std::string evidence, std::string action, std::int64_t gain_ns) {
    Recommendation r;
    r.rule = std::string(rule);
    r.target = std::move(target);
    r.evidence = std::move(evidence);
    r.action = std::move(action);
    r.estimated_gain_ns = std::max<std::int64_t>(0, gain_ns);
    r.estimated_gain_pct = step_ns_ > 0 ? 100.0 * static_cast<double>(r.estimated_gain_ns) / static_cast<double>(step_ns_) : 0.0;
    r.severity = severityOfGain(r.estimated_gain_pct);
    out_.push_back(std::move(r));
  }

  double reachableAmpSpeedup() const { return s_.amdahl.reachableSpeedup(); }

  // Step time AMP would save on GPU figures but the host's pace takes back.
  std::int64_t ampGainLostToHost() const {
    const double step = static_cast<double>(step_ns_);
    return static_cast<std::int64_t>(step * (1.0 / reachableAmpSpeedup() - 1.0 / s_.amdahl.projected_speedup));
  }

  // No change that only makes math kernels faster can gain more than free math would, replayed
  // at the host's pace.
  std::int64_t capMathGain(std::int64_t gpu_gain_ns) const {
    const StepReplay& free_math = s_.amdahl.replay_ceiling;
    if (!free_math.done || free_math.speedup <= 0) return gpu_gain_ns;
    const auto bound = static_cast<std::int64_t>(static_cast<double>(step_ns_) * (1.0 - 1.0 / free_math.speedup));
    return std::min(gpu_gain_ns, bound);
  }

  void recommendAmp() {
    // Host ops project nothing about Tensor Core math (the projection is empty on the CPU anyway).
    if (s_.recorded_on_cpu) return;
    const StepPart* fp32 = part(StepPartKind::kEligibleFp32Math);
    if (!worthAdvising(fp32)) return;
    const double projected = s_.amdahl.projected_speedup;
    const double reachable = reachableAmpSpeedup();
    const auto gain = static_cast<std::int64_t>(static_cast<double>(step_ns_) * (1.0 - 1.0 / reachable));
    std::string evidence =
        fmt::format("{} {} ({:.1f}%) of Tensor-Core-eligible matmul/conv work ran in FP32 on CUDA cores ({}); "
                    "the per-op model gives it {:.1f}x on {}'s FP16/BF16 Tensor Cores (peak ratio {:.1f}x); "
                    "projected {} speedup {:.2f}x, ceiling {:.2f}x",
                    ms(fp32->ns_per_step), per(), 100.0 * fp32->fraction, fp32KernelNames(), fp32->speedup,
                    s_.amdahl.device.name, s_.amdahl.device.fp16_tflops / s_.amdahl.device.fp32_tflops,
                    s_.amdahl.per_step ? "step" : "window", projected, s_.amdahl.ceiling);
    if (reachable < projected * 0.95) {
      evidence += fmt::format("; replayed at the host's pace (blocked time given back) only {:.2f}x (ceiling {:.2f}x): "
                              "the host issues the work no faster than the GPU runs it (see host-bound)",
                              reachable, s_.amdahl.replay_ceiling.speedup);
    }
    add(rule_ids::kEnableAmp, "model", evidence + eligibleLayersOffTensorCores(),
        supportsBf16()
            ? "Enable mixed precision: wrap the forward pass and loss in torch.autocast(device_type=\"cuda\", "
              "dtype=torch.bfloat16), so matmul and convolutions run on Tensor Cores (float16 needs a "
              "torch.amp.GradScaler as well)"
            : "Enable mixed precision: wrap the forward pass and loss in torch.autocast(device_type=\"cuda\", "
              "dtype=torch.float16) and scale the loss with torch.amp.GradScaler (this GPU has no BF16 Tensor "
              "Cores), so matmul and convolutions run on Tensor Cores",
        gain);
    out_.back().ops = eligibleLayerNames();
    if (!s_.layer_table.groups_operators) {
      for (const LayerRow* row : eligibleLayers()) {
        if (std::find(out_.back().layers.begin(), out_.back().layers.end(), row->layer) == out_.back().layers.end()) {
          out_.back().layers.push_back(row->layer);
        }
      }
    }
  }

  // The layers (or top-level ops) and passes whose Tensor-Core-eligible math ran on CUDA cores,
  // heaviest first: what DLProf listed as "eligible for Tensor Cores, not using them", so that a
  // trace of one forward pass names its convolutions and linear layers.
  std::vector<const LayerRow*> eligibleLayers() const {
    std::vector<const LayerRow*> rows;
    for (const LayerRow& row : s_.layer_table.rows) {
      if (row.state == LayerState::kEligibleNotTensorCore && row.eligible_cuda_core_ns > 0) rows.push_back(&row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const LayerRow* a, const LayerRow* b) {
      return a->eligible_cuda_core_ns > b->eligible_cuda_core_ns;
    });
    return rows;
  }

  std::vector<std::string> eligibleLayerNames() const {
    std::vector<std::string> names;
    for (const LayerRow* row : eligibleLayers()) {
      names.push_back(fmt::format("{} {}{}", row->layer, trace::phaseName(row->pass),
                                  row->ops.empty() || row->ops.front() == row->layer ? "" : " (" + row->ops.front() + ")"));
    }
    return names;
  }

  std::string eligibleLayersOffTensorCores() const {
    const std::vector<const LayerRow*> rows = eligibleLayers();
    if (rows.empty()) return {};
    // Layer rows hold every call in the trace; the finding speaks per step (or per window).
    const auto steps = static_cast<std::int64_t>(std::max<std::size_t>(1, s_.iterations.iterations.size()));
    std::string text;
    for (std::size_t i = 0; i < rows.size() && i < 5; ++i) {
      const LayerRow& row = *rows[i];
      text += fmt::format("{}{} {} {} on CUDA cores", i == 0 ? "" : ", ", row.layer, trace::phaseName(row.pass),
                          ms(row.eligible_cuda_core_ns / steps));
      if (row.performance.predicted_amp_ns) {
        text += fmt::format(" (model: {} with AMP, all its kernels)", ms(*row.performance.predicted_amp_ns / steps));
      }
    }
    return fmt::format("; {} {} x pass row{} eligible for Tensor Cores and not using them, {}: {}{}", rows.size(),
                       s_.layer_table.groups_operators ? "op" : "layer", rows.size() == 1 ? " is" : "s are", per(), text,
                       rows.size() > 5 ? fmt::format(" and {} more", rows.size() - 5) : "");
  }

  void recommendTf32() {
    if (s_.recorded_on_cpu) return;
    const StepPart* fp32 = part(StepPartKind::kEligibleFp32Math);
    const StepPart* tf32 = part(StepPartKind::kEligibleTf32Math);
    const DeviceSpec& d = s_.amdahl.device;
    if (worthAdvising(fp32) && s_.tf32.relevant) {
      const double speedup = s_.tf32.matrix_speedup;
      add(rule_ids::kEnableTf32, "model",
          fmt::format("{} {} of FP32 matrix math on CUDA cores ({}) on a GPU with TF32 Tensor Cores; the per-op "
                      "model gives {:.1f}x for it in TF32 ({} peak TF32 {:.1f}x FP32)",
                      ms(fp32->ns_per_step), per(), fp32KernelNames(), speedup, d.name, d.tf32_tflops / d.fp32_tflops),
          "Where the model tolerates TF32's 10-bit mantissa (most training does): "
          "torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = True "
          "(or torch.set_float32_matmul_precision(\"high\"))",
          capMathGain(static_cast<std::int64_t>(static_cast<double>(fp32->ns_per_step) * (1.0 - 1.0 / speedup))));
    }
    if (tf32 && tf32->fraction >= 0.02 && tf32->speedup > 1.0) {
      add(rule_ids::kTf32ToHalfPrecision, "model",
          fmt::format("{} per step ({:.1f}%) of matrix math runs in TF32; FP16/BF16 Tensor Cores are {:.1f}x "
                      "faster on {}", ms(tf32->ns_per_step), 100.0 * tf32->fraction, tf32->speedup, d.name),
          "Run matmul and convolutions in BF16 with torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16)",
          capMathGain(static_cast<std::int64_t>(static_cast<double>(tf32->ns_per_step) * (1.0 - 1.0 / tf32->speedup))));
    }
  }

  // One finding per size to pad, listing every op call shape that has it (padding_findings.h).
  void recommendPadding() {
    for (const PaddingFinding& finding : findPaddingCauses(s_)) {
      std::string ops;
      std::vector<std::string> names;
      std::vector<std::string> layers;
      for (const PaddedOp& op : finding.ops) {
        const ShapeCheck& c = *op.check;
        const std::string name = fmt::format("{}{} {} as {}", c.layer.empty() ? "" : c.layer + " ", c.op, c.shapes, op.dimensions);
        ops += fmt::format("{}{} (M={} N={} K={}{}, {}, {} over {} calls{}): {}", ops.empty() ? "" : "; ", name,
                           c.dims.m > 0 ? std::to_string(c.dims.m) : std::string("unknown"), c.dims.n, c.dims.k,
                           c.dims.batch > 1 ? fmt::format(" x{}", c.dims.batch) : "",
                           c.precision == MathPrecision::kUnknown ? "precision unknown" : precisionName(c.precision),
                           ms(c.gpu_time_ns), c.calls,
                           c.smallest_kernel_alignment > 0 && c.smallest_kernel_alignment < c.required_multiple
                               ? fmt::format(", align{} kernels", c.smallest_kernel_alignment)
                               : "",
                           op.cost);
        names.push_back(name);
        if (!c.layer.empty() && std::find(layers.begin(), layers.end(), c.layer) == layers.end()) layers.push_back(c.layer);
      }
      // Which multiple each precision among its ops wants: the padded size serves them all.
      std::vector<std::pair<std::string, int>> wants;
      for (const PaddedOp& op : finding.ops) {
        const MathPrecision p = op.check->precision;
        const std::string label = p == MathPrecision::kFp32Simt || p == MathPrecision::kFp32 || p == MathPrecision::kUnknown
                                      ? "FP16/BF16 once AMP is on" : precisionName(p);
        const std::pair<std::string, int> want{label, op.check->required_multiple};
        if (std::find(wants.begin(), wants.end(), want) == wants.end()) wants.push_back(want);
      }
      std::string wanted;
      for (const auto& [label, multiple] : wants) {
        wanted += fmt::format("{}{}{}", wanted.empty() ? "" : ", ", wants.size() == 1 ? "" : std::to_string(multiple) + " for ",
                              label);
      }
      add(rule_ids::kPadDimensions, fmt::format("size {}", finding.value),
          fmt::format("{} is not a multiple of {} and is a GEMM dimension of {} op call shape{} ({} over {} calls){}: {}",
                      finding.value, finding.required_multiple, finding.ops.size(), finding.ops.size() == 1 ? "" : "s",
                      ms(finding.gpu_time_ns), finding.calls,
                      s_.recorded_on_cpu || s_.amdahl.device.name.empty()
                          ? std::string()
                          : fmt::format("; the share of each call's time the time model puts on the misalignment on "
                                        "{} (padded, a GEMM does more work on wider kernels)", s_.amdahl.device.name),
                      ops),
          fmt::format("Pad {} to {} (a multiple of {}; {}{}) where the model defines it: a vocabulary, hidden or "
                      "feature size, or the batch",
                      finding.value, finding.padded, finding.required_multiple,
                      wants.size() == 1 ? "for " : "its ops want ", wanted),
          capMathGain(finding.gain_ns));
      out_.back().ops = std::move(names);
      out_.back().layers = std::move(layers);
    }
  }

  // One finding per attention shape computed in pieces (unfused_attention.h, attention_advice.h).
  void recommendFusedAttention() {
    for (AttentionAdvice& advice : adviseFusedAttention(s_, per())) {
      add(rule_ids::kFuseAttention, std::move(advice.target), std::move(advice.evidence), std::move(advice.action),
          advice.gain_ns);
      out_.back().ops = std::move(advice.ops);
      out_.back().layers = std::move(advice.layers);
    }
  }

  void recommendInputPipeline() {
    const DataPipelineExposure& d = s_.data_pipeline;
    if (d.exposed_fraction < 0.03) return;
    add(rule_ids::kHideInputPipeline, "data loader",
        fmt::format("{} per step ({:.1f}%) the host loads data while {}; the loader runs {} "
                    "per step; hidden, the step would be {:.2f}x faster", ms(d.exposed_ns_per_iteration),
                    100.0 * d.exposed_fraction, s_.recorded_on_cpu ? "the CPU backend runs no op" : "the GPU has no work",
                    ms(d.loader_ns_per_iteration), d.speedup_if_hidden),
        s_.recorded_on_cpu
            ? "Prepare batches ahead of the step on worker threads (ampscope train --workers 2 or more; "
              "DataLoader(num_workers=...) in PyTorch); move decoding and augmentation out of the training loop"
            : "Load ahead of the GPU: DataLoader(num_workers=4 or more, pin_memory=True, persistent_workers=True, "
              "prefetch_factor=2); move decoding and augmentation out of the training loop",
        d.exposed_ns_per_iteration);
  }

  void recommendPinnedCopies() {
    const DataPipelineExposure& d = s_.data_pipeline;
    if (d.pageable_h2d_copies == 0 || d.pageable_h2d_ns_per_iteration <= 0) return;
    // Pinned copies run at full PCIe speed and can overlap compute: count half the time as saved.
    add(rule_ids::kPinnedMemoryCopies, "host-to-device copies",
        fmt::format("{} host-to-device copies from pageable memory in the steady steps, {} per step",
                    d.pageable_h2d_copies, ms(d.pageable_h2d_ns_per_iteration)),
        "Copy from pinned memory and asynchronously: DataLoader(pin_memory=True) and "
        "tensor.to(device, non_blocking=True)",
        d.pageable_h2d_ns_per_iteration / 2);
  }

  void recommendLaunchBound() {
    const StepPart* idle = part(StepPartKind::kIdle);
    if (!idle || s_.correlation.kernels == 0 || s_.iterations.iterations.empty()) return;
    const std::int64_t launch_gaps = idle->ns_per_step - s_.data_pipeline.exposed_ns_per_iteration;
    const double mean_kernel_ns = static_cast<double>(s_.gpu_kernel_time_ns) / static_cast<double>(s_.correlation.kernels);
    const double kernels_per_step = static_cast<double>(s_.correlation.kernels) /
                                    static_cast<double>(s_.iterations.iterations.size());
    if (mean_kernel_ns > 20'000 || kernels_per_step < 500 || launch_gaps < step_ns_ / 10) return;
    // CUDA graphs remove most launch gaps; count half of them as saved.
    add(rule_ids::kLaunchBound, "model",
        fmt::format("{:.0f} kernels per step averaging {:.1f} us; the GPU idles {} per step outside data "
                    "loading", kernels_per_step, mean_kernel_ns / 1e3, ms(launch_gaps)),
        "Cut launch overhead: torch.compile(model) to fuse small kernels, CUDA graphs "
        "(torch.cuda.graphs or mode=\"reduce-overhead\"), or a larger batch per step",
        launch_gaps / 2);
    launch_bound_ = true;
  }

  // The host paces the step: faster GPU work would only make the GPU wait. Shown by the replay at
  // the host's pace (blocked time given back) falling well short of Amdahl's projection, and only
  // with the queue's evidence: a GPU busy behind a full queue is not held back by its host.
  void recommendHostBound() {
    const StepPart* idle = part(StepPartKind::kIdle);
    if (!idle || !s_.amdahl.replay.done || launch_bound_ || s_.launch_queue.pacing != Pacing::kHostBound) return;
    const std::int64_t lost = ampGainLostToHost();
    if (lost < step_ns_ / 20) return;
    const std::int64_t gaps = std::max<std::int64_t>(0, idle->ns_per_step - s_.data_pipeline.exposed_ns_per_iteration);
    const std::int64_t busy = step_ns_ - idle->ns_per_step;
    add(rule_ids::kHostBound, "host",
        fmt::format("the GPU is busy {} of each {} step and the host issues its work no faster: replayed at the "
                    "host's pace (time it spent blocked by the GPU given back), AMP gives {:.2f}x instead of {:.2f}x and even free math "
                    "{:.2f}x; {} per step of GPU idle time outside data loading; {}", ms(busy), ms(step_ns_),
                    reachableAmpSpeedup(), s_.amdahl.projected_speedup, s_.amdahl.replay_ceiling.speedup, ms(gaps),
                    s_.launch_queue.pacing_evidence),
        "Cut host time per step: a larger batch (the same host work drives more GPU work), CUDA graphs or "
        "torch.compile(mode=\"reduce-overhead\"), fewer small Python-side ops; when profiling, record_shapes and "
        "with_stack inflate host time, so check the step time without them",
        gaps / 2);
  }

  void recommendSynchronousCalls() {
    const HostStalls& h = s_.host_stalls;
    if (step_ns_ <= 0 || h.sync_ns_per_iteration < step_ns_ / 50) return;
    // A blocked host stops queueing work; removing the stall lets launches run ahead.
    add(rule_ids::kSynchronousCalls, "host",
        fmt::format("{:.1f} synchronising CUDA calls per step (cudaMemcpy, cudaDeviceSynchronize, "
                    "cudaStreamSynchronize, ...) block the host {} per step", h.sync_calls_per_iteration,
                    ms(h.sync_ns_per_iteration)),
        "Avoid host synchronisation inside the step: no .item(), .cpu(), print(tensor) or torch.cuda.synchronize() "
        "per step; copy with non_blocking=True from pinned memory; log metrics every N steps",
        h.sync_ns_per_iteration / 2);
  }

  void recommendLargerBatch() {
    const HostStalls& h = s_.host_stalls;
    const StepPart* idle = part(StepPartKind::kIdle);
    if (h.matrix_kernels == 0 || h.matrix_blocks_per_sm >= 1.0 || !idle || idle->fraction < 0.2) return;
    add(rule_ids::kBatchTooSmall, "model",
        fmt::format("matrix kernels launch {:.2f} thread blocks per SM on average (under one wave) and the GPU "
                    "idles {:.0f}% of the step", h.matrix_blocks_per_sm, 100.0 * idle->fraction),
        "Raise the batch size (scale the learning rate with it) until the matrix kernels fill the GPU; with AMP "
        "the memory saved often allows twice the batch",
        0);
  }

  void recommendLossScaling() {
    const AmpNumerics& n = s_.amp_numerics;
    if (n.counted_steps > 0 && n.skipped_steps * 20 > n.counted_steps) {
      add(rule_ids::kLossScaleOverflows, "loss scaler",
          fmt::format("{} of {} steps were skipped for Inf/NaN gradients ({} {})", n.skipped_steps,
                      n.counted_steps, n.skipped_steps == 1 ? "step" : "steps", formatStepRuns(n.skipped)),
          "Lower the initial loss scale or raise the growth interval; look for layers whose activations "
          "overflow FP16 (or switch to BF16, which needs no loss scaling)",
          0);
    }
    // A scale that stays at 1 is no scaling (FP32, BF16, --loss-scale none), not a fall.
    if (n.loss_scale_samples > 0 && n.loss_scale_final <= 1.0 && n.loss_scale_max > n.loss_scale_final) {
      add(rule_ids::kLossScaleAtFloor, "loss scaler",
          fmt::format("the loss scale fell to {} (from {}): gradients overflow even unscaled",
                      n.loss_scale_final, n.loss_scale_max),
          "Find the operation that overflows FP16 (autocast should keep it in FP32), clip gradients after "
          "unscaling, or train in BF16",
          0);
    }
    recommendUnderflowScale();
  }

  // Gradient values that FP16 rounds to zero at the recorded scale are updates the model never
  // gets. BF16 keeps FP32's exponent range, so a run computing only in BF16 loses none this way.
  void recommendUnderflowScale() {
    constexpr double kLargeShare = 0.01;
    const AmpNumerics& n = s_.amp_numerics;
    const auto computes = [&](std::string_view dtype) {
      return std::find(n.compute_dtypes.begin(), n.compute_dtypes.end(), dtype) != n.compute_dtypes.end();
    };
    // Mixed BF16 runs keep some layers (flatten, losses) in FP32: still no FP16 anywhere.
    const bool fp16 = computes("float16");
    if (computes("bfloat16") && !fp16) return;
    std::string tensors;
    std::size_t listed = 0;
    const TensorNumerics* worst = nullptr;
    for (const TensorNumerics& t : n.tensors) {
      const double share = std::max(t.all.underflowShare(), t.recent.underflowShare());
      if (share < kLargeShare) continue;
      if (!worst) worst = &t;
      if (++listed > 3) continue;
      tensors += fmt::format("{}{} {:.2f}% ({}: {:.2f}%)", tensors.empty() ? "" : "; ", t.tensor,
                             100.0 * t.all.underflowShare(), recentStepsText(n), 100.0 * t.recent.underflowShare());
    }
    if (!worst) return;
    if (listed > 3) tensors += fmt::format("; {} more tensors", listed - 3);
    std::string evidence = fmt::format("gradient values that {} to zero in FP16 at the recorded loss scale "
                                       "(final {}): {}", fp16 ? "round" : "would round", n.loss_scale_final, tensors);
    std::string action = n.loss_scale_max <= 1.0
        ? std::string("Scale the loss with dynamic loss scaling (ampscope train --loss-scale dynamic; "
                      "torch.amp.GradScaler) whenever the model computes in FP16")
        : std::string("Raise the loss scale (a larger initial scale, or a shorter growth interval)");
    if (n.suggested_loss_scale > 0) {
      evidence += fmt::format("; at a scale of {} (where the largest recorded gradient still fits FP16) {} would "
                              "lose {:.2f}%", n.suggested_loss_scale, worst->tensor,
                              100.0 * worst->underflow_share_at_suggested_scale);
      action += fmt::format(", up to about {}: activations' gradients, not recorded, may overflow sooner, which "
                            "dynamic scaling handles by skipping the step and halving the scale",
                            n.suggested_loss_scale);
    }
    add(rule_ids::kGradientUnderflow, "loss scaler", evidence, action + "; or train in BF16, which needs no loss scaling", 0);
  }

  // What AMP frees is memory, not time: the finding claims no step time (a note, ranked after
  // every measured gain), and says what the memory buys, a larger batch, and on which device.
  void recommendMemoryHeadroom() {
    const AmpMemoryProjection& amp = s_.memory.amp;
    if (!amp.applies || !amp.batch || !amp.batch_that_fits || !amp.amp_batch_that_fits) return;
    if (*amp.amp_batch_that_fits <= *amp.batch_that_fits) return;
    const std::string device = amp.fit_device.empty() ? std::string("the device") : amp.fit_device;
    std::string evidence = fmt::format(
        "batch {} peaks at {} allocated; under AMP the projected peak is {} (half-precision activations and "
        "temporaries; FP32 weights, gradients and optimizer state kept{}): {}'s {} fits a batch of up to {} "
        "instead of {}",
        *amp.batch, gib(amp.measured_peak_allocated_bytes), gib(amp.projected_peak_allocated_bytes),
        amp.cast_copy_bytes > 0 ? fmt::format(", {} of half-precision weight copies added", gib(amp.cast_copy_bytes))
                                : std::string(),
        device, gib(static_cast<std::int64_t>(amp.fit_capacity_bytes)), *amp.amp_batch_that_fits, *amp.batch_that_fits);
    if (!amp.note.empty()) evidence += fmt::format(" ({})", amp.note);
    add(rule_ids::kMemoryHeadroom, "model", std::move(evidence),
        fmt::format("Enable AMP (torch.autocast) to fit a batch of up to {} on {} (up to {} now); a larger batch "
                    "changes the step time and may need the learning rate retuned, so measure it",
                    *amp.amp_batch_that_fits, device, *amp.batch_that_fits),
        0);
  }

  // Where a kernel's name and its tensor pipe's counters disagree: a note (no time to gain from
  // knowing it), the counters' verdict being the one every table already uses.
  void noteMeasuredDisagreements() {
    for (const VerdictDisagreement& d : s_.counters.disagreements) {
      const bool name_says_tensor = d.by_name.tensor_core == TensorCoreUse::kYes;
      const std::string measured =
          d.measured == TensorCoreUse::kYes ? fmt::format("busy {:.1f}% of its cycles", d.tensor_active * 100.0) : "idle";
      std::string evidence = fmt::format(
          "its name reads as {} ({} confidence{}), but its tensor pipe was {} (measured: {}), over {} of kernel time",
          name_says_tensor ? fmt::format("Tensor Core {}", precisionName(d.by_name.precision)) : "CUDA-core math",
          confidenceName(d.by_name.confidence), d.by_name.rule_id.empty() ? "" : ", rule " + d.by_name.rule_id,
          measured, d.basis, ms(d.time_ns));
      std::string action =
          name_says_tensor
              ? "It ran on CUDA cores: check the dtypes and shapes of the ops that launch it (FP32 inputs, dimensions "
                "off the multiple of 8 send cuBLAS and cuDNN to CUDA-core kernels); the tables use the measured verdict"
              : "Its tensor pipe did the math although the name reads otherwise: the measured verdict is used, and the "
                "name rule needs a row for it (docs/tensor_core_rules.md)";
      add(rule_ids::kMeasuredVerdictDisagrees, d.kernel, std::move(evidence), std::move(action), 0);
    }
  }

  const TraceSummary& s_;
  std::int64_t step_ns_;
  std::vector<Recommendation> out_;
  bool launch_bound_ = false;
};

}  // namespace

const char* severityName(Severity severity) {
  switch (severity) {
    case Severity::kHigh: return "high";
    case Severity::kMedium: return "medium";
    case Severity::kLow: return "low";
    case Severity::kInfo: break;
  }
  return "info";
}

Severity severityOfGain(double gain_pct) {
  if (gain_pct >= 10.0) return Severity::kHigh;
  if (gain_pct >= 3.0) return Severity::kMedium;
  if (gain_pct >= 0.5) return Severity::kLow;
  return Severity::kInfo;
}

std::vector<Recommendation> recommend(const TraceSummary& summary) { return Recommender(summary).run(); }

}  // namespace ampscope::analyzer
