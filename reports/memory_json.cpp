#include "reports/memory_json.h"

#include <optional>

#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

using nlohmann::ordered_json;

ordered_json bytesOrNull(std::int64_t bytes) { return bytes < 0 ? ordered_json(nullptr) : ordered_json(bytes); }

template <typename T>
ordered_json optionalJson(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json categoriesJson(const std::vector<analyzer::CategoryBytes>& categories) {
  ordered_json out = ordered_json::array();
  for (const analyzer::CategoryBytes& c : categories) {
    out.push_back({{"category", analyzer::memoryCategoryName(c.category)}, {"bytes", c.bytes}});
  }
  return out;
}

ordered_json layersJson(const std::vector<analyzer::LayerBytes>& layers, std::size_t top) {
  ordered_json out = ordered_json::array();
  for (const analyzer::LayerBytes& layer : firstN(layers, top)) {
    out.push_back({{"layer", layer.layer}, {"pass", trace::phaseName(layer.pass)}, {"bytes", layer.bytes},
                   {"blocks", layer.blocks}});
  }
  return out;
}

// Columns, not an object per sample: a timeline holds every event, and three arrays of numbers
// are a third of the size and load straight into numpy.
ordered_json timelineJson(const analyzer::DeviceMemory& device) {
  ordered_json times = ordered_json::array();
  ordered_json allocated = ordered_json::array();
  ordered_json reserved = ordered_json::array();
  const bool recorded = device.peak_reserved_bytes >= 0;
  for (const analyzer::MemorySample& sample : device.timeline) {
    times.push_back(sample.time_ns);
    allocated.push_back(sample.allocated_bytes);
    if (recorded) reserved.push_back(bytesOrNull(sample.reserved_bytes));
  }
  return {{"time_ns", std::move(times)},
          {"allocated_bytes", std::move(allocated)},
          {"reserved_bytes", recorded ? std::move(reserved) : ordered_json(nullptr)}};
}

ordered_json deviceJson(const analyzer::DeviceMemory& d, std::size_t top) {
  ordered_json steps = ordered_json::array();
  for (const analyzer::StepMemory& step : d.steps) {
    steps.push_back({{"number", step.number},
                     {"peak_allocated_bytes", step.peak_allocated_bytes},
                     {"peak_at_ns", step.peak_at_ns},
                     {"saved_for_backward_bytes", step.saved_for_backward_bytes}});
  }
  return {{"kind", trace::deviceKindName(d.kind)},
          {"device", d.device},
          {"name", d.name},
          {"capacity_bytes", d.capacity_bytes > 0 ? ordered_json(d.capacity_bytes) : ordered_json(nullptr)},
          {"totals", analyzer::memoryTotalsName(d.totals)},
          {"matching", analyzer::blockMatchingName(d.matching)},
          {"events", d.events},
          {"before_recording_bytes", d.before_recording_bytes},
          {"peak_allocated_bytes", d.peak_allocated_bytes},
          {"peak_reserved_bytes", bytesOrNull(d.peak_reserved_bytes)},
          {"peak_at_ns", d.peak_at_ns},
          {"peak_step", d.peak_step < 0 ? ordered_json(nullptr) : ordered_json(d.peak_step)},
          {"by_category", categoriesJson(d.peak_by_category)},
          {"by_layer", layersJson(d.peak_by_layer, top)},
          {"steps", std::move(steps)},
          {"saved_for_backward_by_layer", layersJson(d.saved_for_backward_by_layer, top)},
          {"timeline", timelineJson(d)}};
}

ordered_json ampJson(const analyzer::AmpMemoryProjection& amp) {
  return {{"recipe", analyzer::halfPrecisionRecipeName(amp.recipe)},
          {"applies", amp.applies},
          {"note", amp.note},
          {"device", amp.applies ? ordered_json(amp.device) : ordered_json(nullptr)},
          {"of_steps", amp.of_steps},
          {"measured_peak_at_ns", amp.measured_peak_at_ns},
          {"measured_peak_allocated_bytes", amp.measured_peak_allocated_bytes},
          {"projected_peak_allocated_bytes", amp.applies ? ordered_json(amp.projected_peak_allocated_bytes) : ordered_json(nullptr)},
          {"cast_copy_bytes", amp.applies ? ordered_json(amp.cast_copy_bytes) : ordered_json(nullptr)},
          {"measured_by_category", categoriesJson(amp.measured_by_category)},
          {"projected_by_category", categoriesJson(amp.projected_by_category)},
          {"batch", optionalJson(amp.batch)},
          {"batch_that_fits", optionalJson(amp.batch_that_fits)},
          {"amp_batch_that_fits", optionalJson(amp.amp_batch_that_fits)},
          {"fit_device", amp.fit_device.empty() ? ordered_json(nullptr) : ordered_json(amp.fit_device)},
          {"fit_capacity_bytes", amp.fit_capacity_bytes > 0 ? ordered_json(amp.fit_capacity_bytes) : ordered_json(nullptr)}};
}

}  // namespace

ordered_json memoryJson(const analyzer::MemoryAnalysis& memory, std::size_t top) {
  const analyzer::DeviceMemory* primary = memory.primaryDevice();
  if (!primary) return nullptr;
  ordered_json devices = ordered_json::array();
  for (const analyzer::DeviceMemory& d : memory.devices) devices.push_back(deviceJson(d, top));
  return {{"device", {{"kind", trace::deviceKindName(primary->kind)}, {"device", primary->device}, {"name", primary->name}}},
          {"peak_allocated_bytes", primary->peak_allocated_bytes},
          {"peak_reserved_bytes", bytesOrNull(primary->peak_reserved_bytes)},
          {"peak_at_ns", primary->peak_at_ns},
          {"peak_step", primary->peak_step < 0 ? ordered_json(nullptr) : ordered_json(primary->peak_step)},
          {"totals", analyzer::memoryTotalsName(primary->totals)},
          {"matching", analyzer::blockMatchingName(primary->matching)},
          {"by_category", categoriesJson(primary->peak_by_category)},
          {"by_layer", layersJson(primary->peak_by_layer, top)},
          {"devices", std::move(devices)},
          {"amp", ampJson(memory.amp)},
          {"master_weights", ampJson(memory.master_weights)}};
}

}  // namespace ampscope::reports
