#include "analyzer/run_comparison.h"

#include <algorithm>
#include <map>

namespace ampscope::analyzer {

namespace {

std::int64_t perStep(std::int64_t total_ns, const TraceSummary& summary) {
  const std::size_t steps = summary.iterations.iterations.size();
  return steps == 0 ? total_ns : total_ns / static_cast<std::int64_t>(steps);
}

// Matches groups (operators or layers) by name and compares their GPU time per step.
std::vector<OperatorComparison> compareGroups(const std::vector<GroupTime>& in_a, const TraceSummary& a,
                                              const std::vector<GroupTime>& in_b, const TraceSummary& b) {
  std::map<std::string, OperatorComparison> by_name;
  for (const GroupTime& group : in_a) {
    OperatorComparison& c = by_name[group.name];
    c.name = group.name;
    c.a_ns_per_step = perStep(group.gpu_time_ns, a);
  }
  for (const GroupTime& group : in_b) {
    OperatorComparison& c = by_name[group.name];
    c.name = group.name;
    c.b_ns_per_step = perStep(group.gpu_time_ns, b);
  }
  std::vector<OperatorComparison> out;
  for (auto& [name, c] : by_name) {
    if (c.b_ns_per_step > 0) {
      c.speedup = static_cast<double>(c.a_ns_per_step) / static_cast<double>(c.b_ns_per_step);
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.a_ns_per_step != y.a_ns_per_step ? x.a_ns_per_step > y.a_ns_per_step : x.name < y.name;
  });
  return out;
}

}  // namespace

RunComparison compareRuns(const TraceSummary& a, const TraceSummary& b) {
  RunComparison out;
  out.a_step_ns = a.iterations.steady_mean_ns;
  out.b_step_ns = b.iterations.steady_mean_ns;
  if (out.a_step_ns > 0 && out.b_step_ns > 0) {
    out.measured_speedup = static_cast<double>(out.a_step_ns) / static_cast<double>(out.b_step_ns);
  }
  out.a_projections.push_back({"hide the input pipeline", a.data_pipeline.speedup_if_hidden});
  if (a.data_pipeline.replay_if_hidden.done) {
    out.a_projections.push_back({"hide the input pipeline (replayed at the host's pace)",
                                 a.data_pipeline.replay_if_hidden.speedup});
  }
  if (!a.amdahl.parts.empty()) {
    out.a_projections.push_back({"enable AMP", a.amdahl.projected_speedup});
    out.a_projections.push_back({"AMP ceiling (infinitely fast math)", a.amdahl.ceiling});
  }
  if (a.amdahl.replay.done) {
    out.a_projections.push_back({"enable AMP (replayed at the host's pace)", a.amdahl.replay.speedup});
  }

  out.operators = compareGroups(a.operators, a, b.operators, b);
  out.layers = compareGroups(a.layers, a, b.layers, b);
  return out;
}

}  // namespace ampscope::analyzer
