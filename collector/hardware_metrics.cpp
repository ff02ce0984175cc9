#include "collector/hardware_metrics.h"

#include <cstdlib>

#include <fmt/format.h>

#include "collector/inject/injected_recording.h"

namespace ampscope::collector {

namespace {

constexpr MetricsMode kModes[] = {MetricsMode::kNone, MetricsMode::kSampled, MetricsMode::kPerKernel};

// PM sampling: the tensor pipe's and the SMs' activity as a share of the sample's elapsed cycles,
// which is what Nsight Systems shows as "Tensor Active" and "SM Active", so the two sources read
// alike. Both fit one pass on Ampere, Ada, Hopper and Blackwell (GA10x, AD10x, GH100, GB10x,
// GB20x, checked against CUPTI 13's host API); on Turing the tensor pipe's counter alone takes two
// passes, which PM sampling cannot make, so only the SMs' share is recorded there.
constexpr MetricCandidate kSampledCandidates[] = {
    {"sm__pipe_tensor_cycles_active", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"},
    {"sm__cycles_active", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
};

// Range profiler: the share as above, the SMs' active and elapsed cycles (what the share is of,
// and how much of the GPU the kernel kept busy), the tensor instructions, and where the chip names
// them, the HMMA pipe (Volta-style warp MMA: FP16/BF16/TF32) and Hopper's warpgroup GMMA
// instructions. The later ones are left out where they would need a second pass.
constexpr MetricCandidate kPerKernelCandidates[] = {
    {"sm__pipe_tensor_cycles_active", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"},
    {"sm__cycles_active", "sm__cycles_active.avg"},
    {"sm__cycles_elapsed", "sm__cycles_elapsed.avg"},
    {"sm__inst_executed_pipe_tensor", "sm__inst_executed_pipe_tensor.sum"},
    {"sm__pipe_tensor_op_hmma_cycles_active", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"},
    {"sm__inst_executed_pipe_tensor_op_gmma", "sm__inst_executed_pipe_tensor_op_gmma.sum"},
};

}  // namespace

trace::Result<MetricsMode> parseMetricsMode(std::string_view text) {
  if (text.empty()) return MetricsMode::kNone;
  for (MetricsMode mode : kModes) {
    if (text == metricsModeName(mode)) return mode;
  }
  return trace::Error{fmt::format("--metrics: unknown value '{}' (expected tensor for samples of the tensor pipe's "
                                  "and the SMs' activity over time, tensor:per-kernel for the same counters per "
                                  "kernel, which runs kernels one at a time, or none)",
                                  text)};
}

const char* metricsModeName(MetricsMode mode) {
  switch (mode) {
    case MetricsMode::kNone: return "none";
    case MetricsMode::kSampled: return "tensor";
    case MetricsMode::kPerKernel: return "tensor:per-kernel";
  }
  return "none";
}

MetricsMode metricsModeFromEnvironment() {
  const char* text = std::getenv(kMetricsVariable);
  if (text == nullptr) return MetricsMode::kNone;
  auto mode = parseMetricsMode(text);
  return mode ? *mode : MetricsMode::kNone;
}

const char* counterProfilerName(CounterProfiler profiler) {
  return profiler == CounterProfiler::kPmSampling ? "PM sampling" : "range profiler";
}

std::span<const MetricCandidate> metricCandidates(CounterProfiler profiler) {
  if (profiler == CounterProfiler::kPmSampling) return kSampledCandidates;
  return kPerKernelCandidates;
}

MetricChoice chooseMetrics(CounterProfiler profiler, const std::set<std::string, std::less<>>& base_metrics,
                           const PassCount& passes) {
  MetricChoice choice;
  for (const MetricCandidate& candidate : metricCandidates(profiler)) {
    if (!base_metrics.contains(candidate.base)) {
      choice.left_out.push_back(fmt::format("{} (the chip has no {})", candidate.metric, candidate.base));
      continue;
    }
    std::vector<std::string> trial = choice.metrics;
    trial.emplace_back(candidate.metric);
    const trace::Result<std::size_t> needed = passes(trial);
    if (!needed) {
      choice.left_out.push_back(fmt::format("{} ({})", candidate.metric, needed.error().message));
    } else if (*needed > 1) {
      choice.left_out.push_back(fmt::format("{} (it would need a second pass)", candidate.metric));
    } else {
      choice.metrics = std::move(trial);
    }
  }
  return choice;
}

std::string hardwareCounterNote(std::string_view why) { return fmt::format("hardware counters: {}", why); }

}  // namespace ampscope::collector
