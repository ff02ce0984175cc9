#include "analyzer/memory/memory_analysis.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analyzer/memory/amp_memory_projection.h"
#include "analyzer/memory/block_origins.h"
#include "analyzer/memory/live_set.h"
#include "analyzer/memory/memory_blocks.h"

namespace ampscope::analyzer {

const char* memoryTotalsName(MemoryTotals totals) {
  switch (totals) {
    case MemoryTotals::kRecorded: return "recorded";
    case MemoryTotals::kReconstructed: return "reconstructed";
  }
  return "recorded";
}

const char* blockMatchingName(BlockMatching matching) {
  switch (matching) {
    case BlockMatching::kByAddress: return "address";
    case BlockMatching::kBySize: return "size";
  }
  return "address";
}

const char* halfPrecisionRecipeName(HalfPrecisionRecipe recipe) {
  switch (recipe) {
    case HalfPrecisionRecipe::kAutocast: return "autocast";
    case HalfPrecisionRecipe::kMasterWeights: return "master_weights";
  }
  return "autocast";
}

const char* memoryCategoryName(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::kActivations: return "activations";
    case MemoryCategory::kForwardTemporary: return "forward_temporary";
    case MemoryCategory::kGradients: return "gradients";
    case MemoryCategory::kBackwardTemporary: return "backward_temporary";
    case MemoryCategory::kOptimizerState: return "optimizer_state";
    case MemoryCategory::kPersistent: return "persistent";
    case MemoryCategory::kUnattributed: return "unattributed";
    case MemoryCategory::kOutsideSteps: return "outside_steps";
    case MemoryCategory::kBeforeRecording: return "before_recording";
    case MemoryCategory::kAllocatorSlack: return "allocator_slack";
  }
  return "unattributed";
}

namespace {

void describeDevice(const trace::Trace& trace, DeviceMemory& out) {
  for (const trace::Device& d : trace.devices) {
    if (d.id != out.device || d.kind != out.kind) continue;
    out.name = std::string(trace.str(d.name));
    out.capacity_bytes = d.total_memory_bytes;
    return;
  }
}

void keepBlocks(const DeviceEvents& events, const std::vector<BlockOrigin>& origins, DeviceMemory& out) {
  std::map<std::string, std::int32_t> layer_index;
  out.blocks.reserve(events.blocks.size());
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    const MemoryBlock& block = events.blocks[b];
    const auto [at, fresh] = layer_index.try_emplace(origins[b].layer, static_cast<std::int32_t>(out.block_layers.size()));
    if (fresh) out.block_layers.push_back(origins[b].layer);
    MemoryBlockSpan& span = out.blocks.emplace_back();
    span.allocated_ns = events.events[block.allocated_at]->time_ns;
    if (block.freed_at != MemoryBlock::kNeverFreed) span.freed_ns = events.events[block.freed_at]->time_ns;
    span.bytes = block.bytes;
    span.layer = at->second;
    span.pass = origins[b].pass;
    span.category = origins[b].category;
  }
}

// Each step's peak and the activations its forward kept for its backward; by layer for the step
// of the device's peak (or its last step).
void measureSteps(const IterationSummary& iterations, const DeviceEvents& events,
                  const std::vector<BlockOrigin>& origins, DeviceMemory& out) {
  if (iterations.iterations.empty()) return;
  std::map<std::int32_t, StepMemory> by_step;
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    const std::int32_t step = stepAt(iterations, events.events[i]->time_ns);
    if (step < 0) continue;
    StepMemory& row = by_step[step];
    row.number = iterations.iterations[static_cast<std::size_t>(step)].number;
    if (events.allocated[i] > row.peak_allocated_bytes) {
      row.peak_allocated_bytes = events.allocated[i];
      row.peak_at_ns = events.events[i]->time_ns;
    }
  }
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    const BlockOrigin& origin = origins[b];
    if (origin.step < 0 || origin.category != MemoryCategory::kActivations) continue;
    by_step[origin.step].saved_for_backward_bytes += events.blocks[b].bytes;
  }
  const std::int32_t peak_step = stepAt(iterations, out.peak_at_ns);
  const std::int32_t shown_step = peak_step >= 0 || by_step.empty() ? peak_step : by_step.rbegin()->first;
  out.saved_for_backward_by_layer = bytesByLayer(events, origins, [&](std::size_t b) {
    return origins[b].step == shown_step && origins[b].category == MemoryCategory::kActivations;
  });
  if (peak_step >= 0) out.peak_step = iterations.iterations[static_cast<std::size_t>(peak_step)].number;
  for (auto& [step, row] : by_step) out.steps.push_back(row);
}

DeviceMemory measureDevice(const trace::Trace& trace, const IterationSummary& iterations, const DeviceEvents& events,
                           const std::vector<BlockOrigin>& origins) {
  DeviceMemory out;
  out.kind = events.kind;
  out.device = events.device;
  describeDevice(trace, out);
  out.totals = events.totals;
  out.matching = events.matching;
  out.events = events.events.size();
  out.before_recording_bytes = events.before_recording_bytes;
  out.timeline.reserve(events.events.size());
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    out.timeline.push_back({events.events[i]->time_ns, events.allocated[i], events.reserved[i]});
    out.peak_reserved_bytes = std::max(out.peak_reserved_bytes, events.reserved[i]);
  }
  const std::size_t peak = peakEvent(events, iterations, false);
  out.peak_allocated_bytes = events.allocated[peak];
  out.peak_at_ns = events.events[peak]->time_ns;
  LiveSet live = liveSetAfter(events, origins, peak);
  out.peak_by_category = std::move(live.by_category);
  out.peak_by_layer = std::move(live.by_layer);
  keepBlocks(events, origins, out);
  measureSteps(iterations, events, origins, out);
  return out;
}

// The GPU with the highest peak, else the host.
int primaryDevice(const std::vector<DeviceMemory>& devices) {
  int primary = -1;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceMemory& d = devices[i];
    if (primary < 0) {
      primary = static_cast<int>(i);
      continue;
    }
    const DeviceMemory& best = devices[static_cast<std::size_t>(primary)];
    const bool gpu_over_host = d.kind == trace::DeviceKind::kGpu && best.kind != trace::DeviceKind::kGpu;
    const bool higher_of_kind = d.kind == best.kind && d.peak_allocated_bytes > best.peak_allocated_bytes;
    if (gpu_over_host || higher_of_kind) primary = static_cast<int>(i);
  }
  return primary;
}

}  // namespace

std::vector<LayerBytes> liveByLayerAt(const DeviceMemory& device, std::int64_t time_ns) {
  std::map<std::pair<std::int32_t, trace::Phase>, LayerBytes> by_layer;
  for (const MemoryBlockSpan& block : device.blocks) {
    if (block.allocated_ns > time_ns || block.freed_ns <= time_ns) continue;
    LayerBytes& row = by_layer[{block.layer, block.pass}];
    row.layer = device.block_layers[static_cast<std::size_t>(block.layer)];
    row.pass = block.pass;
    row.bytes += block.bytes;
    ++row.blocks;
  }
  std::vector<LayerBytes> out;
  for (auto& [key, row] : by_layer) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const LayerBytes& a, const LayerBytes& b) { return a.bytes > b.bytes; });
  return out;
}

MemoryAnalysis analyzeMemory(const trace::Trace& trace, const IterationSummary& iterations,
                             const DeviceSpec* fit_device) {
  MemoryAnalysis analysis;
  MemoryOddities oddities;
  const std::vector<DeviceEvents> devices = readDeviceEvents(trace, oddities);
  std::vector<std::vector<BlockOrigin>> origins;
  for (const DeviceEvents& events : devices) {
    origins.push_back(originsOf(trace, iterations, events));
    analysis.devices.push_back(measureDevice(trace, iterations, events, origins.back()));
  }
  analysis.primary = primaryDevice(analysis.devices);
  if (analysis.primary >= 0) {
    const auto p = static_cast<std::size_t>(analysis.primary);
    analysis.amp = projectAmpMemory(trace, iterations, devices[p], origins[p], analysis.devices[p], fit_device,
                                    HalfPrecisionRecipe::kAutocast);
    analysis.master_weights = projectAmpMemory(trace, iterations, devices[p], origins[p], analysis.devices[p],
                                               fit_device, HalfPrecisionRecipe::kMasterWeights);
  }
  analysis.not_understood = std::move(oddities.counts);
  analysis.first_place = std::move(oddities.first_place);
  return analysis;
}

}  // namespace ampscope::analyzer
