#include "analyzer/advice/gpu_work_comparison.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analyzer/advice/recommendations.h"
#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {

namespace {

// Call ratios closer than this are the same (they are ratios of whole numbers of calls).
constexpr double kSameRatio = 1e-9;

std::string duration(double ns) {
  return std::abs(ns) >= 1e6 ? fmt::format("{:.2f} ms", ns / 1e6) : fmt::format("{:.1f} us", ns / 1e3);
}

// Each device's busy time, summed: two GPUs busy at once are twice the work of one.
std::int64_t busyTime(const TraceSummary& s) {
  std::int64_t busy = 0;
  for (const DeviceSummary& d : s.devices) busy += d.busy_ns;
  return busy;
}

double ratioOf(std::int64_t a, std::int64_t b, double work_ratio) {
  return a > 0 && b > 0 ? work_ratio * static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// A's kernel time over the same with `saved_ns` taken off it.
GpuWorkPrediction speedupOfKernelTime(const TraceSummary& a, double saved_ns, std::string from) {
  const double kernel = static_cast<double>(a.gpu_kernel_time_ns);
  if (kernel <= 0) return {std::nullopt, "A ran no kernels"};
  const double predicted = kernel - std::clamp(saved_ns, -kernel, kernel);
  if (predicted <= 0) return {std::nullopt, "A's model predicts no GPU time left: " + from};
  return {kernel / predicted, std::move(from)};
}

// Each op's time replaced by its prediction (`predicted` returns nullopt where the change leaves
// the op alone); the rest of A's kernel time at 1x.
template <typename Predicted>
GpuWorkPrediction perOpPrediction(const TraceSummary& a, const char* what, Predicted predicted) {
  if (a.recorded_on_cpu) return {std::nullopt, "A was recorded on the CPU: its ops have no GPU time to predict"};
  if (!a.device.spec) {
    return {std::nullopt, fmt::format("A's device is unknown: its per-op model has no {} predictions ({})", what,
                                      a.op_performance.note)};
  }
  double changed = 0;
  double saved = 0;
  std::size_t rows = 0;
  for (const OpRow& row : a.op_performance.rows) {
    const std::optional<double> ns = predicted(row);
    if (!ns) continue;
    ++rows;
    changed += static_cast<double>(row.time_ns);
    saved += static_cast<double>(row.time_ns) - *ns;
  }
  const double kernel = static_cast<double>(a.gpu_kernel_time_ns);
  return speedupOfKernelTime(
      a, saved,
      fmt::format("A's per-op {} predictions over its GPU work: {} op call shape{} with {} of its {} kernel time "
                  "predicted to take {}, the rest at 1x",
                  what, rows, rows == 1 ? "" : "s", duration(changed), duration(kernel), duration(changed - saved)));
}

}  // namespace

GpuWorkComparison compareGpuWork(const TraceSummary& a, const TraceSummary& b,
                                 const std::vector<OperatorComparison>& operators) {
  GpuWorkComparison out;
  out.a_busy_ns = busyTime(a);
  out.b_busy_ns = busyTime(b);
  out.a_kernel_ns = a.gpu_kernel_time_ns;
  out.b_kernel_ns = b.gpu_kernel_time_ns;
  double weight = 0;
  double weighted = 0;
  bool first = true;
  for (const OperatorComparison& op : operators) {
    if (op.a_calls == 0 || op.b_calls == 0 || op.a_trace_ns <= 0) continue;
    const double ratio = static_cast<double>(op.b_calls) / static_cast<double>(op.a_calls);
    out.a_paired_calls += op.a_calls;
    out.b_paired_calls += op.b_calls;
    weight += static_cast<double>(op.a_trace_ns);
    weighted += static_cast<double>(op.a_trace_ns) * ratio;
    out.min_call_ratio = first ? ratio : std::min(out.min_call_ratio, ratio);
    out.max_call_ratio = first ? ratio : std::max(out.max_call_ratio, ratio);
    first = false;
  }
  if (weight > 0) out.work_ratio = weighted / weight;
  if (weight <= 0) {
    out.work_note = "no op call shape ran in both traces with calls to count: the traces are taken to hold the same work";
  } else if (out.max_call_ratio - out.min_call_ratio < kSameRatio && std::abs(out.work_ratio - 1.0) < kSameRatio) {
    out.work_note = fmt::format("both ran the op call shapes they share the same number of times ({} call{})",
                                out.a_paired_calls, out.a_paired_calls == 1 ? "" : "s");
  } else if (out.max_call_ratio - out.min_call_ratio < kSameRatio) {
    out.work_note = fmt::format("B ran each op call shape both ran {:.2f}x as often as A ({} calls against {}): B's time "
                                "is divided by {:.2f}",
                                out.work_ratio, out.b_paired_calls, out.a_paired_calls, out.work_ratio);
  } else {
    out.work_note = fmt::format("B ran the op call shapes both ran {:.2f}x to {:.2f}x as often as A ({} calls against {}; "
                                "{:.2f}x weighted by A's time in them): B's time is divided by {:.2f}",
                                out.min_call_ratio, out.max_call_ratio, out.b_paired_calls, out.a_paired_calls,
                                out.work_ratio, out.work_ratio);
  }
  out.busy_speedup = ratioOf(out.a_busy_ns, out.b_busy_ns, out.work_ratio);
  out.kernel_speedup = ratioOf(out.a_kernel_ns, out.b_kernel_ns, out.work_ratio);
  return out;
}

GpuWorkPrediction predictGpuWork(const TraceSummary& a, RunChange change) {
  switch (change) {
    case RunChange::kAmp:
      return perOpPrediction(a, "AMP", [](const OpRow& row) -> std::optional<double> {
        if (!row.predicted_amp_ns) return std::nullopt;
        return static_cast<double>(*row.predicted_amp_ns);
      });
    case RunChange::kTf32:
      // As on the steps basis: the FP32 CUDA-core matrix ops at their TF32 predictions.
      return perOpPrediction(a, "TF32", [](const OpRow& row) -> std::optional<double> {
        // The rows the TF32 projection itself sums (tf32_projection.h).
        if (row.op_class != OpClass::kMatrix || row.precision != MathPrecision::kFp32Simt || row.tf32_speedup <= 0) {
          return std::nullopt;
        }
        return static_cast<double>(row.time_ns) / row.tf32_speedup;
      });
    case RunChange::kPadding: {
      // Gains are per iteration where A has iterations (each over every iteration, warm-up
      // included, as its op time is), else over its trace.
      const auto iterations = static_cast<double>(std::max<std::size_t>(1, a.iterations.iterations.size()));
      double gain = 0;
      std::size_t estimated = 0;
      for (const Recommendation& r : recommend(a)) {
        if (r.rule != rule_ids::kPadDimensions || r.estimated_gain_ns <= 0) continue;
        gain += static_cast<double>(r.estimated_gain_ns) * iterations;
        ++estimated;
      }
      if (estimated == 0) {
        return {std::nullopt,
                "A's analysis estimated no gain from padding (it needs aligned calls of the same op to compare with)"};
      }
      return speedupOfKernelTime(a, gain,
                                 fmt::format("A's {} pad-dimensions recommendation{}: {} of its {} kernel time", estimated,
                                             estimated == 1 ? "" : "s", duration(gain),
                                             duration(static_cast<double>(a.gpu_kernel_time_ns))));
    }
    case RunChange::kDataLoading:
      return {std::nullopt, "a data-loading change is scored per step: without steps in both runs there is nothing to score"};
    case RunChange::kUnknown: break;
  }
  return {std::nullopt, "no prediction for an unknown change"};
}

}  // namespace ampscope::analyzer
