#include "analyzer/memory/live_set.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace ampscope::analyzer {

std::vector<LayerBytes> bytesByLayer(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                     const std::function<bool(std::size_t)>& take) {
  std::map<std::pair<std::string, trace::Phase>, LayerBytes> by_layer;
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    if (!take(b)) continue;
    LayerBytes& row = by_layer[{origins[b].layer, origins[b].pass}];
    row.layer = origins[b].layer;
    row.pass = origins[b].pass;
    row.bytes += events.blocks[b].bytes;
    ++row.blocks;
  }
  std::vector<LayerBytes> out;
  out.reserve(by_layer.size());
  for (auto& [key, row] : by_layer) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const LayerBytes& a, const LayerBytes& b) { return a.bytes > b.bytes; });
  return out;
}

LiveSet liveSetAfter(const DeviceEvents& events, const std::vector<BlockOrigin>& origins, std::size_t at) {
  std::map<MemoryCategory, std::int64_t> by_category;
  std::int64_t seen = 0;
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    if (!liveAfter(events.blocks[b], at)) continue;
    seen += events.blocks[b].bytes;
    by_category[origins[b].category] += events.blocks[b].bytes;
  }
  by_category[MemoryCategory::kBeforeRecording] += std::max<std::int64_t>(0, events.allocated[at] - seen);
  if (events.reserved[at] > events.allocated[at]) {
    by_category[MemoryCategory::kAllocatorSlack] += events.reserved[at] - events.allocated[at];
  }
  LiveSet live;
  for (const auto& [category, bytes] : by_category) {
    if (bytes > 0) live.by_category.push_back({category, bytes});
  }
  std::stable_sort(live.by_category.begin(), live.by_category.end(),
                   [](const CategoryBytes& a, const CategoryBytes& b) { return a.bytes > b.bytes; });
  live.by_layer = bytesByLayer(events, origins, [&](std::size_t b) { return liveAfter(events.blocks[b], at); });
  return live;
}

std::size_t peakEvent(const DeviceEvents& events, const IterationSummary& iterations, bool within_steps) {
  std::size_t peak = 0;
  bool found = false;
  const bool steps_only = within_steps && !iterations.iterations.empty();
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    if (steps_only && stepAt(iterations, events.events[i]->time_ns) < 0) continue;
    if (!found || events.allocated[i] > events.allocated[peak]) peak = i;
    found = true;
  }
  return found ? peak : peakEvent(events, iterations, false);
}

}  // namespace ampscope::analyzer
