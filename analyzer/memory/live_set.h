#pragma once
// What is live on a device just after one of its events, by category and by layer: the blocks
// seen, the part of the total no seen block explains (made before the recording) and the
// allocator's slack where its reserved total is recorded.

#include <cstddef>
#include <functional>
#include <vector>

#include "analyzer/memory/block_origins.h"
#include "analyzer/memory/memory_analysis.h"
#include "analyzer/memory/memory_blocks.h"

namespace ampscope::analyzer {

// Allocated at or before event `at`, freed after it.
inline bool liveAfter(const MemoryBlock& block, std::size_t at) {
  return block.allocated_at <= at && (block.freed_at == MemoryBlock::kNeverFreed || block.freed_at > at);
}

struct LiveSet {
  std::vector<CategoryBytes> by_category;  // largest first
  std::vector<LayerBytes> by_layer;        // largest first
};

LiveSet liveSetAfter(const DeviceEvents& events, const std::vector<BlockOrigin>& origins, std::size_t at);

// Blocks grouped by layer and pass, largest first: `take(b)` says whether block b counts.
std::vector<LayerBytes> bytesByLayer(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                     const std::function<bool(std::size_t)>& take);

// The first event at which allocated reaches its highest: over every event, or, with
// `within_steps`, over the events inside a step (over every event where none is).
std::size_t peakEvent(const DeviceEvents& events, const IterationSummary& iterations, bool within_steps);

}  // namespace ampscope::analyzer
