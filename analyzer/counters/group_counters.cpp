#include "analyzer/counters/group_counters.h"

#include <map>
#include <utility>

#include "analyzer/correlate/layer_attribution.h"
#include "analyzer/counters/range_tally.h"

namespace ampscope::analyzer {

std::vector<GroupCounterRow> tallyGroups(const trace::Trace& trace, bool& groups_operators) {
  groups_operators = false;
  if (trace.kernel_metrics.empty()) return {};
  LayerAttribution attribution(trace);
  // (group label, pass) -> the tally, and the order first met (ranges are in launch order).
  std::map<std::pair<std::int32_t, trace::Phase>, std::size_t> index_of;
  std::vector<std::pair<std::pair<std::int32_t, trace::Phase>, RangeTally>> tallies;
  for (const trace::KernelMetrics& range : trace.kernel_metrics) {
    if (range.launch == trace::kNone) continue;
    const trace::Index op_range = trace.launches[static_cast<std::size_t>(range.launch)].op_range;
    const std::int32_t origin_index = attribution.originOf(op_range);
    if (origin_index < 0) continue;
    const KernelOrigin& origin = attribution.origins().origins[static_cast<std::size_t>(origin_index)];
    if (origin.group < 0) continue;
    const std::pair<std::int32_t, trace::Phase> key{origin.group, origin.phase};
    auto [found, fresh] = index_of.try_emplace(key, tallies.size());
    if (fresh) tallies.emplace_back(key, RangeTally{});
    tallies[found->second].second.add(trace, range);
  }
  groups_operators = attribution.origins().groups_operators;
  std::vector<GroupCounterRow> out;
  out.reserve(tallies.size());
  for (const auto& [key, tally] : tallies) {
    GroupCounterRow row;
    row.group = std::string(attribution.origins().label(key.first));
    row.pass = key.second;
    row.ranges = tally.ranges();
    row.totals = tally.totals(trace);
    row.tensor_active = tally.share();
    row.cuda_core_ops = tally.cudaCoreOps();
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace ampscope::analyzer
