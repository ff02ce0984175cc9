#include "analyzer/steps/host_step_split.h"

#include <algorithm>
#include <array>

namespace ampscope::analyzer {

namespace {

PassPartKind kindOfPass(trace::Phase phase) {
  switch (phase) {
    case trace::Phase::kForward: return PassPartKind::kForwardOps;
    case trace::Phase::kBackward: return PassPartKind::kBackwardOps;
    case trace::Phase::kLossScale: return PassPartKind::kLossScaleOps;
    case trace::Phase::kOptimizer: return PassPartKind::kOptimizerOps;
    case trace::Phase::kData: return PassPartKind::kDataPhaseOps;
    case trace::Phase::kStep:
    case trace::Phase::kUnknown: break;
  }
  return PassPartKind::kOtherOps;
}

}  // namespace

const char* passPartKindName(PassPartKind kind) {
  switch (kind) {
    case PassPartKind::kForwardOps: return "forward_ops";
    case PassPartKind::kBackwardOps: return "backward_ops";
    case PassPartKind::kLossScaleOps: return "loss_scale_ops";
    case PassPartKind::kOptimizerOps: return "optimizer_ops";
    case PassPartKind::kDataPhaseOps: return "data_phase_ops";
    case PassPartKind::kOtherOps: return "other_ops";
    case PassPartKind::kExposedDataLoading: return "exposed_data_loading";
    case PassPartKind::kBetweenOps: break;
  }
  return "between_ops";
}

const char* passPartLabel(PassPartKind kind) {
  switch (kind) {
    case PassPartKind::kForwardOps: return "forward ops";
    case PassPartKind::kBackwardOps: return "backward ops";
    case PassPartKind::kLossScaleOps: return "loss-scaling ops";
    case PassPartKind::kOptimizerOps: return "optimizer ops";
    case PassPartKind::kDataPhaseOps: return "data-phase ops";
    case PassPartKind::kOtherOps: return "other ops";
    case PassPartKind::kExposedDataLoading: return "exposed data loading";
    case PassPartKind::kBetweenOps: break;
  }
  return "host time between ops";
}

std::vector<PassPart> splitStepByPass(const trace::Trace& trace, const IterationSummary& iterations,
                                      const DataPipelineExposure& data_pipeline) {
  const auto steps = static_cast<std::int64_t>(iterations.steadyCount());
  if (steps == 0) return {};
  constexpr std::size_t kOpKinds = static_cast<std::size_t>(PassPartKind::kOtherOps) + 1;
  std::array<std::int64_t, kOpKinds> ops_ns{};
  const SteadySpans steady(iterations, StepClock::kHost);
  for (const trace::Kernel& op : trace.kernels) {
    const std::int64_t asked =
        op.launch == trace::kNone ? op.start_ns : trace.launches[static_cast<std::size_t>(op.launch)].start_ns;
    if (!steady.contains(asked)) continue;
    const trace::Phase phase =
        op.op_range == trace::kNone ? trace::Phase::kUnknown : trace.ranges[static_cast<std::size_t>(op.op_range)].phase;
    ops_ns[static_cast<std::size_t>(kindOfPass(phase))] += op.end_ns - op.start_ns;
  }
  std::vector<PassPart> out;
  std::int64_t accounted = 0;
  const auto add = [&](PassPartKind kind, std::int64_t ns) {
    if (ns <= 0) return;
    out.push_back({kind, ns});
    accounted += ns;
  };
  for (std::size_t i = 0; i < kOpKinds; ++i) add(static_cast<PassPartKind>(i), ops_ns[i] / steps);
  add(PassPartKind::kExposedDataLoading, data_pipeline.exposed_ns_per_iteration);
  add(PassPartKind::kBetweenOps, std::max<std::int64_t>(0, iterations.steady_mean_ns - accounted));
  return out;
}

}  // namespace ampscope::analyzer
