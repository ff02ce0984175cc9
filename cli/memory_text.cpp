#include "cli/memory_text.h"

#include <fmt/format.h>

#include "reports/memory_view.h"
#include "reports/report_file.h"
#include "reports/view_limits.h"

namespace ampscope::cli {

using reports::formatBytes;

namespace {

std::string reservedText(const analyzer::DeviceMemory& d) {
  return d.peak_reserved_bytes < 0 ? std::string("reserved unknown (not recorded)")
                                   : fmt::format("reserved {}", formatBytes(d.peak_reserved_bytes));
}

std::string capacityText(const analyzer::DeviceMemory& d) {
  if (d.capacity_bytes == 0) return {};
  return fmt::format(" of {} ({})", formatBytes(static_cast<std::int64_t>(d.capacity_bytes)),
                     reports::shareOfPeak(d.peak_allocated_bytes, static_cast<std::int64_t>(d.capacity_bytes)));
}

void appendLayers(std::string& out, std::span<const analyzer::LayerBytes> layers, std::size_t total,
                  std::int64_t peak_bytes) {
  out += fmt::format("    {:>10} {:>6} {:>7}  {:<9} {}\n", "bytes", "share", "blocks", "pass", "layer");
  for (const analyzer::LayerBytes& layer : layers) {
    out += fmt::format("    {:>10} {:>6} {:>7}  {:<9} {}\n", formatBytes(layer.bytes),
                       reports::shareOfPeak(layer.bytes, peak_bytes), layer.blocks, trace::phaseName(layer.pass),
                       reports::memoryLayerLabel(layer));
  }
  if (total > layers.size()) out += fmt::format("    ... {} more\n", total - layers.size());
}

}  // namespace

std::string memoryHeadlineText(const analyzer::TraceSummary& s) {
  const analyzer::DeviceMemory* d = s.memory.primaryDevice();
  if (!d) return "memory      unknown: the trace records no memory events\n";
  return fmt::format("memory      peak {} allocated, {} on {} ({}); Memory below\n", formatBytes(d->peak_allocated_bytes),
                     reservedText(*d), reports::memoryDeviceLabel(*d),
                     d->totals == analyzer::MemoryTotals::kRecorded ? "measured" : "reconstructed");
}

std::string memoryToText(const analyzer::TraceSummary& s, std::size_t top) {
  const analyzer::MemoryAnalysis& memory = s.memory;
  const analyzer::DeviceMemory* d = memory.primaryDevice();
  if (!d) return {};
  std::string out = fmt::format("\nMemory on {}: {}\n", reports::memoryDeviceLabel(*d), reports::memoryBasisText(*d));
  out += fmt::format("  peak        allocated {}{}, {}; {}, {} event{}\n", formatBytes(d->peak_allocated_bytes),
                     capacityText(*d), reservedText(*d), reports::memoryPeakWhenText(*d, s.iterations), d->events,
                     d->events == 1 ? "" : "s");
  if (!d->peak_by_category.empty()) {
    out += "  at the peak by category (inferred from lifetimes, except slack and before-recording)\n";
    for (const analyzer::CategoryBytes& c : d->peak_by_category) {
      out += fmt::format("    {:>10} {:>6}  {}\n", formatBytes(c.bytes), reports::shareOfPeak(c.bytes, d->peak_allocated_bytes),
                         reports::memoryCategoryLabel(c.category));
    }
  }
  if (!d->peak_by_layer.empty()) {
    out += "  live at the peak by the layer that allocated it\n";
    appendLayers(out, reports::firstN(d->peak_by_layer, top), d->peak_by_layer.size(), d->peak_allocated_bytes);
  }
  if (!d->steps.empty()) {
    std::string steps;
    for (const analyzer::StepMemory& step : reports::firstN(d->steps, top)) {
      steps += fmt::format("{}step {} {}", steps.empty() ? "" : ", ", step.number, formatBytes(step.saved_for_backward_bytes));
    }
    if (d->steps.size() > top) steps += fmt::format(", ... {} more steps", d->steps.size() - top);
    out += fmt::format("  saved for backward (activations freed in the step's backward, inferred): {}\n", steps);
  }
  if (!d->saved_for_backward_by_layer.empty()) {
    out += "  saved for backward by layer, in the peak's step\n";
    appendLayers(out, reports::firstN(d->saved_for_backward_by_layer, top), d->saved_for_backward_by_layer.size(),
                 d->peak_allocated_bytes);
  }
  out += fmt::format("  AMP         {}\n", reports::ampMemoryText(memory.amp));
  if (memory.master_weights.applies) {
    out += fmt::format("  half model  {}\n", reports::ampMemoryText(memory.master_weights));
  }
  for (const analyzer::DeviceMemory& other : memory.devices) {
    if (&other == d) continue;
    out += fmt::format("  also        {}: peak {} allocated, {}, {} ({})\n", reports::memoryDeviceLabel(other),
                       formatBytes(other.peak_allocated_bytes), reservedText(other),
                       reports::memoryPeakWhenText(other, s.iterations), analyzer::memoryTotalsName(other.totals));
  }
  return out;
}

}  // namespace ampscope::cli
