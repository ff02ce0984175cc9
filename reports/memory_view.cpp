#include "reports/memory_view.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/report_file.h"

namespace ampscope::reports {

std::string memoryDeviceLabel(const analyzer::DeviceMemory& device) {
  if (device.kind == trace::DeviceKind::kCpu) return "host";
  return device.name.empty() ? fmt::format("GPU {}", device.device) : fmt::format("GPU {} ({})", device.device, device.name);
}

std::string memoryBasisText(const analyzer::DeviceMemory& device) {
  std::string totals = device.totals == analyzer::MemoryTotals::kRecorded
                           ? std::string("measured (the allocator's totals)")
                           : fmt::format("reconstructed from the events' sizes{} (inferred)",
                                         device.before_recording_bytes > 0
                                             ? fmt::format(", at least {} allocated before the first event",
                                                           formatBytes(device.before_recording_bytes))
                                             : std::string());
  const char* matching = device.matching == analyzer::BlockMatching::kByAddress
                             ? "blocks matched by address"
                             : "blocks matched by size (inferred: the events record no addresses)";
  return totals + "; " + matching;
}

std::string memoryPeakWhenText(const analyzer::DeviceMemory& device, const analyzer::IterationSummary& iterations) {
  if (device.peak_step < 0) return "outside every step";
  for (const analyzer::Iteration& step : iterations.iterations) {
    if (step.number != device.peak_step) continue;
    if (device.peak_at_ns < step.start_ns) break;
    return fmt::format("in step {}, {} after it began", step.number, formatDuration(device.peak_at_ns - step.start_ns));
  }
  return fmt::format("in step {}", device.peak_step);
}

std::string memoryCategoryLabel(analyzer::MemoryCategory category) {
  using analyzer::MemoryCategory;
  switch (category) {
    case MemoryCategory::kActivations: return "activations";
    case MemoryCategory::kForwardTemporary: return "forward temporaries";
    case MemoryCategory::kGradients: return "gradients";
    case MemoryCategory::kBackwardTemporary: return "backward temporaries";
    case MemoryCategory::kOptimizerState: return "optimizer state";
    case MemoryCategory::kPersistent: return "persistent (weights, setup, live to the end)";
    case MemoryCategory::kUnattributed: return "unattributed (op of unknown phase)";
    case MemoryCategory::kOutsideSteps: return "outside the steps (evaluation, setup temporaries)";
    case MemoryCategory::kBeforeRecording: return "made before the recording (unseen)";
    case MemoryCategory::kAllocatorSlack: return "allocator slack (reserved, not allocated)";
  }
  return analyzer::memoryCategoryName(category);
}

std::string memoryLayerLabel(const analyzer::LayerBytes& layer) {
  return layer.layer.empty() ? std::string("(allocating op unknown)") : layer.layer;
}

std::string shareOfPeak(std::int64_t bytes, std::int64_t peak_bytes) {
  if (peak_bytes <= 0) return "-";
  return formatPercent(static_cast<double>(bytes) / static_cast<double>(peak_bytes));
}

std::string ampMemoryText(const analyzer::AmpMemoryProjection& amp) {
  if (!amp.applies) {
    return amp.note.empty() ? std::string("no projection") : fmt::format("no projection: {}", amp.note);
  }
  const bool autocast = amp.recipe == analyzer::HalfPrecisionRecipe::kAutocast;
  const char* under = autocast ? "under AMP" : "as a half model with FP32 master weights";
  std::string out = fmt::format("projected peak {} {} (measured {}{}", formatBytes(amp.projected_peak_allocated_bytes),
                                under, formatBytes(amp.measured_peak_allocated_bytes),
                                amp.of_steps ? " at the steps' peak" : "");
  if (amp.cast_copy_bytes > 0) {
    out += fmt::format("; the projection adds {} {}", formatBytes(amp.cast_copy_bytes),
                       autocast ? "of half-precision weight copies" : "for the FP32 master weights and their gradients");
  }
  out += ")";
  const std::string where = amp.fit_device.empty() ? std::string("the device") : amp.fit_device;
  if (!amp.batch) {
    out += "; the batch is unknown (no op records input shapes), so the batch that fits is unknown";
  } else if (amp.fit_capacity_bytes == 0 || !amp.batch_that_fits || !amp.amp_batch_that_fits) {
    out += fmt::format("; batch {}; the batch that fits is unknown: {}'s memory is unknown (name it with --gpu NAME)",
                       *amp.batch, where);
  } else {
    out += fmt::format("; batch {}: up to {} fit{} in {}'s {} now, {} {}", *amp.batch, *amp.batch_that_fits,
                       *amp.batch_that_fits == 1 ? "s" : "", where,
                       formatBytes(static_cast<std::int64_t>(amp.fit_capacity_bytes)), *amp.amp_batch_that_fits,
                       autocast ? "under AMP" : "as a half model");
  }
  if (!amp.note.empty()) out += fmt::format(" ({})", amp.note);
  return out;
}

std::vector<analyzer::MemorySample> thinMemoryTimeline(std::span<const analyzer::MemorySample> timeline,
                                                       std::size_t columns) {
  if (columns == 0 || timeline.size() <= 4 * columns) return {timeline.begin(), timeline.end()};
  const std::int64_t first_ns = timeline.front().time_ns;
  const double span = static_cast<double>(timeline.back().time_ns - first_ns);
  const auto columnOf = [&](const analyzer::MemorySample& sample) {
    if (span <= 0) return std::size_t{0};
    const auto column = static_cast<std::size_t>(static_cast<double>(sample.time_ns - first_ns) / span *
                                                 static_cast<double>(columns));
    return std::min(column, columns - 1);
  };
  std::vector<analyzer::MemorySample> out;
  std::size_t begin = 0;
  while (begin < timeline.size()) {
    const std::size_t column = columnOf(timeline[begin]);
    std::size_t end = begin + 1;
    while (end < timeline.size() && columnOf(timeline[end]) == column) ++end;
    std::size_t kept[6] = {begin, end - 1, begin, begin, begin, begin};
    for (std::size_t i = begin; i < end; ++i) {
      if (timeline[i].allocated_bytes < timeline[kept[2]].allocated_bytes) kept[2] = i;
      if (timeline[i].allocated_bytes > timeline[kept[3]].allocated_bytes) kept[3] = i;
      if (timeline[i].reserved_bytes < timeline[kept[4]].reserved_bytes) kept[4] = i;
      if (timeline[i].reserved_bytes > timeline[kept[5]].reserved_bytes) kept[5] = i;
    }
    std::sort(std::begin(kept), std::end(kept));
    const std::size_t* last = std::unique(std::begin(kept), std::end(kept));
    for (const std::size_t* i = std::begin(kept); i != last; ++i) out.push_back(timeline[*i]);
    begin = end;
  }
  return out;
}

}  // namespace ampscope::reports
