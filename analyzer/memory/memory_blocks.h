#pragma once
// One device's memory events read as blocks: each allocation and the free that ends it, matched by
// address where the events record one and, where they do not, by size (the latest live block of
// the free's size: inferred). The totals after each event are the allocator's where recorded and
// otherwise summed from the sizes. Frees that end no block, allocations at a live address and
// totals below zero are counted, never trusted blindly and never fatal.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "analyzer/memory/memory_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct MemoryBlock {
  static constexpr std::size_t kNeverFreed = std::numeric_limits<std::size_t>::max();

  std::size_t allocated_at = 0;       // into DeviceEvents::events
  std::size_t freed_at = kNeverFreed;  // into DeviceEvents::events; kNeverFreed: live at the end
  std::int64_t bytes = 0;
};

// What could not be made sense of, by reason, with the first event's time: the summary adds them
// to the import's counts (trace::ImportStats::not_understood).
struct MemoryOddities {
  std::map<std::string, std::uint64_t> counts;
  std::map<std::string, std::string> first_place;
  void count(const std::string& reason, std::int64_t time_ns);
};

struct DeviceEvents {
  trace::DeviceKind kind = trace::DeviceKind::kGpu;
  std::uint32_t device = 0;
  std::vector<const trace::MemoryEvent*> events;  // in time order
  MemoryTotals totals = MemoryTotals::kRecorded;
  BlockMatching matching = BlockMatching::kByAddress;
  std::int64_t before_recording_bytes = 0;  // reconstructed totals: the least allocated before the first event
  std::vector<std::int64_t> allocated;  // per event: allocated just after it
  std::vector<std::int64_t> reserved;   // per event: reserved just after it; -1 where not recorded
  std::vector<MemoryBlock> blocks;      // in allocation order
  std::vector<std::int32_t> block_of_free;  // per event: the block a free ends; -1 otherwise
};

// The trace's memory events split by device (GPUs by ordinal, then the host), each read as blocks.
std::vector<DeviceEvents> readDeviceEvents(const trace::Trace& trace, MemoryOddities& oddities);

}  // namespace ampscope::analyzer
