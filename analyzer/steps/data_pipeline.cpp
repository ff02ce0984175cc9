#include "analyzer/steps/data_pipeline.h"

#include <algorithm>
#include <optional>

#include "analyzer/steps/gpu_activity.h"

namespace ampscope::analyzer {

namespace {

// The iteration whose host range contains time_ns, or -1: loading and the copies it asks for are
// the host's work.
std::ptrdiff_t iterationAt(const std::vector<Iteration>& iterations, std::int64_t time_ns) {
  const auto after = std::upper_bound(iterations.begin(), iterations.end(), time_ns,
                                      [](std::int64_t t, const Iteration& it) { return t < it.host_start_ns; });
  if (after == iterations.begin()) return -1;
  const auto candidate = after - 1;
  if (time_ns > candidate->host_end_ns) return -1;
  return candidate - iterations.begin();
}

std::int64_t meanOverSteady(const std::vector<Iteration>& iterations, const std::vector<std::int64_t>& values) {
  std::int64_t sum = 0;
  std::int64_t count = 0;
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    if (iterations[i].warmup) continue;
    sum += values[i];
    ++count;
  }
  return count == 0 ? 0 : sum / count;
}

}  // namespace

bool isOutermostData(const trace::Trace& trace, const trace::Range& range) {
  if (range.phase != trace::Phase::kData || range.kind == trace::RangeKind::kGpuAnnotation) return false;
  return range.parent == trace::kNone ||
         trace.ranges[static_cast<std::size_t>(range.parent)].phase != trace::Phase::kData;
}

DataPipelineExposure measureDataPipeline(const trace::Trace& trace, const IterationSummary& summary,
                                         const StepReplayer* replayer, const GpuActivity* shared_gpu) {
  DataPipelineExposure out;
  const std::vector<Iteration>& iterations = summary.iterations;
  if (iterations.empty()) return out;
  std::optional<GpuActivity> own_gpu;
  const GpuActivity& gpu = shared_gpu ? *shared_gpu : own_gpu.emplace(trace);
  out.exposed_ns.assign(iterations.size(), 0);
  std::vector<std::int64_t> loader_ns(iterations.size(), 0);
  std::vector<std::int64_t> pageable_ns(iterations.size(), 0);

  for (const trace::Range& range : trace.ranges) {
    if (!isOutermostData(trace, range)) continue;
    const std::ptrdiff_t at = iterationAt(iterations, range.start_ns);
    if (at < 0) continue;
    const std::int64_t duration = range.end_ns - range.start_ns;
    loader_ns[static_cast<std::size_t>(at)] += duration;
    out.exposed_ns[static_cast<std::size_t>(at)] += duration - gpu.busyWithin(range.start_ns, range.end_ns);
  }
  for (const trace::MemoryOp& op : trace.memory_ops) {
    if (op.kind != trace::MemoryOpKind::kMemcpy || op.direction != trace::CopyDirection::kHostToDevice ||
        op.src_kind != trace::MemoryKind::kPageable) {
      continue;
    }
    // Attribute the copy to the step that asked for it, by its API call where known.
    const std::int64_t asked_ns =
        op.launch == trace::kNone ? op.start_ns : trace.launches[static_cast<std::size_t>(op.launch)].start_ns;
    const std::ptrdiff_t at = iterationAt(iterations, asked_ns);
    if (at < 0) continue;
    pageable_ns[static_cast<std::size_t>(at)] += op.end_ns - op.start_ns;
    if (!iterations[static_cast<std::size_t>(at)].warmup) ++out.pageable_h2d_copies;
  }
  out.exposed_ns_per_iteration = meanOverSteady(iterations, out.exposed_ns);
  out.loader_ns_per_iteration = meanOverSteady(iterations, loader_ns);
  out.pageable_h2d_ns_per_iteration = meanOverSteady(iterations, pageable_ns);
  if (summary.steady_mean_ns > 0) {
    out.exposed_fraction = static_cast<double>(out.exposed_ns_per_iteration) /
                           static_cast<double>(summary.steady_mean_ns);
    const std::int64_t hidden = summary.steady_mean_ns - out.exposed_ns_per_iteration;
    if (hidden > 0) {
      out.speedup_if_hidden = static_cast<double>(summary.steady_mean_ns) / static_cast<double>(hidden);
    }
  }
  if (out.loader_ns_per_iteration > 0) {
    ReplayScenario hidden;
    hidden.hide_data_loading = true;
    out.replay_if_hidden = replayer ? replayer->replay(hidden) : replaySteadySteps(trace, summary, hidden);
  }
  return out;
}

}  // namespace ampscope::analyzer
