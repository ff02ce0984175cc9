#include "analyzer/memory/memory_blocks.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

namespace ampscope::analyzer {
namespace {

using trace::MemoryEvent;

// Recorded totals where every event of the device has them; one missing total (a form that mixes,
// a value the importer could not read) and the device's totals are summed from the sizes instead,
// so that a timeline never mixes the two.
MemoryTotals totalsOf(const std::vector<const MemoryEvent*>& events) {
  const bool all_recorded = std::all_of(events.begin(), events.end(), [](const MemoryEvent* e) {
    return e->total_allocated != MemoryEvent::kNotRecorded;
  });
  return all_recorded ? MemoryTotals::kRecorded : MemoryTotals::kReconstructed;
}

// By address where every allocation records one; by size otherwise.
BlockMatching matchingOf(const std::vector<const MemoryEvent*>& events) {
  const bool all_addressed = std::all_of(events.begin(), events.end(), [](const MemoryEvent* e) {
    return e->bytes <= 0 || e->address != 0;
  });
  return all_addressed ? BlockMatching::kByAddress : BlockMatching::kBySize;
}

void fillTotals(DeviceEvents& device, MemoryOddities& oddities) {
  const std::size_t n = device.events.size();
  device.allocated.resize(n);
  device.reserved.resize(n);
  if (device.totals == MemoryTotals::kRecorded) {
    bool reserved_below_allocated = false;
    for (std::size_t i = 0; i < n; ++i) {
      device.allocated[i] = device.events[i]->total_allocated;
      device.reserved[i] = device.events[i]->total_reserved;
      reserved_below_allocated = reserved_below_allocated || (device.reserved[i] >= 0 && device.reserved[i] < device.allocated[i]);
    }
    // A reservation holds what is allocated: a reserved total below it is no reservation total
    // (PyTorch's host events record 0, the host having no caching allocator).
    if (reserved_below_allocated) std::fill(device.reserved.begin(), device.reserved.end(), -1);
    return;
  }
  // The sum of the sizes counts from an unknown start: memory allocated before the recording began
  // and freed in it drives the sum below zero. The least start that keeps it at zero or above is
  // what the events prove was there before (a lower bound).
  std::int64_t sum = 0;
  std::int64_t lowest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += device.events[i]->bytes;
    device.allocated[i] = sum;
    lowest = std::min(lowest, sum);
  }
  device.before_recording_bytes = -lowest;
  if (lowest < 0) {
    const auto first_negative = std::find_if(device.allocated.begin(), device.allocated.end(),
                                             [](std::int64_t v) { return v < 0; });
    oddities.count("memory freed that was allocated before the recording began",
                   device.events[static_cast<std::size_t>(first_negative - device.allocated.begin())]->time_ns);
  }
  for (std::size_t i = 0; i < n; ++i) {
    device.allocated[i] += device.before_recording_bytes;
    device.reserved[i] = device.events[i]->total_reserved;  // recorded alone is still a measure
  }
}

void matchByAddress(DeviceEvents& device, MemoryOddities& oddities) {
  std::unordered_map<std::uint64_t, std::int32_t> live;  // address -> block
  for (std::size_t i = 0; i < device.events.size(); ++i) {
    const MemoryEvent& e = *device.events[i];
    if (e.bytes > 0) {
      const auto [at, fresh] = live.try_emplace(e.address, static_cast<std::int32_t>(device.blocks.size()));
      if (!fresh) {
        // A second allocation at a live address: the free of the first was not recorded. The first
        // block ends here, where it must have ended at the latest.
        oddities.count("memory allocated at an address already live", e.time_ns);
        device.blocks[static_cast<std::size_t>(at->second)].freed_at = i;
        at->second = static_cast<std::int32_t>(device.blocks.size());
      }
      device.blocks.push_back({.allocated_at = i, .freed_at = MemoryBlock::kNeverFreed, .bytes = e.bytes});
    } else if (e.bytes < 0) {
      const auto at = live.find(e.address);
      if (at == live.end()) {
        if (device.totals == MemoryTotals::kRecorded) {
          // With recorded totals, a block allocated before the recording began is part of them.
          continue;
        }
        oddities.count("memory freed at an address with no recorded allocation", e.time_ns);
        continue;
      }
      MemoryBlock& block = device.blocks[static_cast<std::size_t>(at->second)];
      block.freed_at = i;
      device.block_of_free[i] = at->second;
      if (block.bytes != -e.bytes) oddities.count("memory freed with another size than it was allocated", e.time_ns);
      live.erase(at);
    }
  }
}

void matchBySize(DeviceEvents& device) {
  std::unordered_map<std::int64_t, std::vector<std::int32_t>> live;  // size -> blocks, latest last
  for (std::size_t i = 0; i < device.events.size(); ++i) {
    const MemoryEvent& e = *device.events[i];
    if (e.bytes > 0) {
      live[e.bytes].push_back(static_cast<std::int32_t>(device.blocks.size()));
      device.blocks.push_back({.allocated_at = i, .freed_at = MemoryBlock::kNeverFreed, .bytes = e.bytes});
    } else if (e.bytes < 0) {
      auto at = live.find(-e.bytes);
      // A free of a size with no live block ends memory allocated before the recording began: the
      // reconstructed totals count it already (before_recording_bytes).
      if (at == live.end() || at->second.empty()) continue;
      const std::int32_t block = at->second.back();
      at->second.pop_back();
      device.blocks[static_cast<std::size_t>(block)].freed_at = i;
      device.block_of_free[i] = block;
    }
  }
}

}  // namespace

void MemoryOddities::count(const std::string& reason, std::int64_t time_ns) {
  if (counts[reason]++ == 0) first_place[reason] = fmt::format("memory event at {} ns", time_ns);
}

std::vector<DeviceEvents> readDeviceEvents(const trace::Trace& trace, MemoryOddities& oddities) {
  // GPUs by ordinal, then the host.
  std::map<std::tuple<bool, std::uint32_t>, DeviceEvents> by_device;
  for (const MemoryEvent& e : trace.memory_events) {
    if (e.bytes == 0) continue;  // moves nothing
    DeviceEvents& device = by_device[{e.device_kind == trace::DeviceKind::kCpu, e.device}];
    device.kind = e.device_kind;
    device.device = e.device;
    device.events.push_back(&e);
  }
  std::vector<DeviceEvents> devices;
  devices.reserve(by_device.size());
  for (auto& [key, device] : by_device) {
    device.totals = totalsOf(device.events);
    device.matching = matchingOf(device.events);
    device.block_of_free.assign(device.events.size(), -1);
    fillTotals(device, oddities);
    if (device.matching == BlockMatching::kByAddress) matchByAddress(device, oddities);
    else matchBySize(device);
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace ampscope::analyzer
