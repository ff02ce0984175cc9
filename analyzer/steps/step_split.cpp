#include "analyzer/steps/step_split.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "analyzer/core/intervals.h"
#include "analyzer/steps/collectives.h"

namespace ampscope::analyzer {

std::vector<StepSplit> splitSteps(const trace::Trace& trace, const IterationSummary& iterations,
                                  const DataPipelineExposure& data) {
  std::vector<StepSplit> out;
  // One union over all devices: a rank is one process, and its step waits for whichever of its
  // devices is busy.
  std::vector<Interval> compute;
  std::vector<Interval> communication;
  std::unordered_map<trace::StringId, bool> is_collective;
  for (const trace::Kernel& k : trace.kernels) {
    auto [cached, fresh] = is_collective.try_emplace(k.name);
    if (fresh) cached->second = collectiveKindOfKernel(trace.str(k.name)).has_value();
    (cached->second ? communication : compute).emplace_back(k.start_ns, k.end_ns);
  }
  for (const trace::MemoryOp& m : trace.memory_ops) compute.emplace_back(m.start_ns, m.end_ns);
  compute = unite(std::move(compute));
  communication = unite(std::move(communication));

  std::vector<Iteration> steps = iterations.iterations;
  const bool whole_window = steps.empty();
  if (whole_window) {
    // Both unions are sorted: the window runs from the earlier front to the later back.
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    for (const std::vector<Interval>* busy : {&compute, &communication}) {
      if (busy->empty()) continue;
      first = std::min(first, busy->front().first);
      last = std::max(last, busy->back().second);
    }
    if (first > last) return out;  // no GPU record
    steps.push_back({.number = -1, .start_ns = first, .end_ns = last, .warmup = false});
  }
  out.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Iteration& it = steps[i];
    StepSplit step{.number = it.number, .start_ns = it.start_ns, .end_ns = it.end_ns, .warmup = it.warmup,
                   .whole_window = whole_window};
    step.compute_ns = lengthWithin(compute, it.start_ns, it.end_ns);
    step.communication_ns = lengthWithin(communication, it.start_ns, it.end_ns);
    // The collective time that compute did not cover: clip the collectives to the step first.
    std::vector<Interval> comm_in_step;
    auto first = std::lower_bound(communication.begin(), communication.end(), it.start_ns,
                                  [](const Interval& c, std::int64_t t) { return c.second <= t; });
    for (auto c = first; c != communication.end() && c->first < it.end_ns; ++c) {
      comm_in_step.emplace_back(std::max(c->first, it.start_ns), std::min(c->second, it.end_ns));
    }
    step.exposed_communication_ns = step.communication_ns - shared(comm_in_step, compute);
    step.data_ns = i < data.exposed_ns.size() ? data.exposed_ns[i] : 0;
    step.idle_ns = std::max<std::int64_t>(
        0, it.durationNs() - step.compute_ns - step.exposed_communication_ns - step.data_ns);
    out.push_back(step);
  }
  return out;
}

}  // namespace ampscope::analyzer
