#include "analyzer/memory/amp_memory_projection.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <functional>
#include <string>
#include <map>

#include <fmt/format.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/eligible_ops.h"
#include "analyzer/memory/live_set.h"
#include "analyzer/model/amp_op_policy.h"

namespace ampscope::analyzer {
namespace {

// Half precision takes 2 bytes where FP32 takes 4.
constexpr double kHalfOfFp32 = 0.5;
constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

// The run's matrix ops already read FP16/BF16 tensors: autocast (or a half model) is on.
bool computesInHalf(const trace::Trace& trace) {
  EligibleOps eligible(trace);
  for (const trace::Range& range : trace.ranges) {
    if (range.dtypes == trace::StringTable::kEmpty || !eligible.isEligible(range)) continue;
    if (dtypesAreHalf(trace.str(range.dtypes))) return true;
  }
  return false;
}

// What autocast makes of a block's bytes: the tensors the step's ops make take half where the op
// runs in half precision (and the ops after it that keep their input's type); what autocast keeps
// in FP32, the FP32 weights, their gradients and the optimizer's state keep theirs.
double ampFactor(const BlockOrigin& origin) {
  return scalesWithBatch(origin.category) && !origin.fp32_under_autocast ? kHalfOfFp32 : 1.0;
}

// The FP32 bytes of the parameters, from the peak step's parameter gradients (a gradient has its
// parameter's size): every parameter the backward made a gradient for; with `half_ops_only`, those
// of the ops autocast runs in half.
std::int64_t parameterBytesFromGradients(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                         std::int32_t step, bool half_ops_only) {
  std::int64_t bytes = 0;
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    const BlockOrigin& origin = origins[b];
    if (origin.step != step || origin.category != MemoryCategory::kGradients) continue;
    if (half_ops_only && origin.fp32_under_autocast) continue;
    bytes += events.blocks[b].bytes;
  }
  return bytes;
}

bool readsWeights(std::string_view op_name) {
  const std::string name = [&] {
    std::string lower(op_name.substr(op_name.rfind(':') == std::string_view::npos ? 0 : op_name.rfind(':') + 1));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
  }();
  return name.find("linear") != std::string::npos || name.rfind("conv", 0) == 0;
}

// Where no gradient was seen (a trace whose gradients were made before the recording and are
// zeroed, not freed): the FP32 bytes of the weights and biases (second and third inputs) the
// step's forward convolutions and linear layers read, counting only the outermost such op
// (aten::conv2d, not the aten::convolution inside it).
std::int64_t parameterBytesFromShapes(const trace::Trace& trace, const IterationSummary& iterations,
                                      std::int32_t step) {
  constexpr std::int64_t kFp32Bytes = 4;
  EligibleOps eligible(trace);
  std::int64_t bytes = 0;
  for (const trace::Range& range : trace.ranges) {
    if (range.phase != trace::Phase::kForward || range.shapes == trace::StringTable::kEmpty) continue;
    if (stepAt(iterations, range.start_ns) != step || !eligible.isEligible(range)) continue;
    if (!readsWeights(opName(trace, range)) || eligible.enclosing(range.parent, false) != trace::kNone) continue;
    const std::optional<Shapes> shapes = parseShapes(trace.str(range.shapes));
    if (!shapes) continue;
    for (std::size_t input = 1; input < std::min<std::size_t>(3, shapes->size()); ++input) {
      const std::vector<std::int64_t>& shape = (*shapes)[input];
      if (shape.empty()) continue;
      std::int64_t elements = 1;
      for (const std::int64_t d : shape) elements *= std::max<std::int64_t>(0, d);
      bytes += elements * kFp32Bytes;
    }
  }
  return bytes;
}

// What the recipe adds for the weights, from their FP32 bytes. Autocast: a half-precision copy of
// the weights of the ops it runs in half, held by the cast cache from the forward's first use to
// the backward that reads them. Master weights: the half model and its half gradients replace
// the FP32 ones, and the FP32 master weights and gradients are added: one FP32 parameter size.
struct WeightsAdded {
  std::int64_t bytes = 0;
  std::string from;  // where the parameter bytes were read, for the note
};

WeightsAdded weightBytesAdded(const trace::Trace& trace, const IterationSummary& iterations,
                              const DeviceEvents& events, const std::vector<BlockOrigin>& origins, std::int32_t step,
                              HalfPrecisionRecipe recipe) {
  const bool autocast = recipe == HalfPrecisionRecipe::kAutocast;
  std::int64_t parameters = parameterBytesFromGradients(events, origins, step, autocast);
  std::string from = "(their bytes read from the parameter gradients)";
  if (parameters == 0) {
    parameters = parameterBytesFromShapes(trace, iterations, step);
    from = parameters > 0 ? "(their bytes read from the convolutions' and linear layers' weight shapes: no parameter "
                            "gradient was seen)"
                          : "(not counted: no parameter gradient was seen and no weight shape recorded)";
  }
  const double added = autocast ? kHalfOfFp32 * static_cast<double>(parameters) : static_cast<double>(parameters);
  return {static_cast<std::int64_t>(added), std::move(from)};
}

// Replays the device's events with each block's bytes scaled by its factor: the projected total
// after each event is the measured one less what the live blocks would not take. The highest over
// the events `counted` (those inside the steps, or all).
std::int64_t projectedPeak(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                           const std::function<bool(std::size_t)>& counted) {
  const auto unneeded = [&](std::size_t b) {
    const double bytes = static_cast<double>(events.blocks[b].bytes);
    return static_cast<std::int64_t>((1.0 - ampFactor(origins[b])) * bytes);
  };
  std::int64_t saving = 0;
  std::int64_t peak = 0;
  std::size_t next_block = 0;
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    if (const std::int32_t freed = events.block_of_free[i]; freed >= 0) saving -= unneeded(static_cast<std::size_t>(freed));
    for (; next_block < events.blocks.size() && events.blocks[next_block].allocated_at == i; ++next_block) {
      saving += unneeded(next_block);
    }
    if (counted(i)) peak = std::max(peak, events.allocated[i] - saving);
  }
  return peak;
}

// The categories live at the peak, each block scaled; the parts no block explains keep their bytes,
// the allocator's slack is left out (the allocator's, not the model's), the weights' added bytes go
// to the persistent part.
std::vector<CategoryBytes> projectCategories(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                             const std::vector<CategoryBytes>& measured, std::size_t peak,
                                             std::int64_t weight_bytes_added) {
  std::map<MemoryCategory, double> saving;
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    if (!liveAfter(events.blocks[b], peak)) continue;
    saving[origins[b].category] += (1.0 - ampFactor(origins[b])) * static_cast<double>(events.blocks[b].bytes);
  }
  std::vector<CategoryBytes> out;
  bool persistent_seen = false;
  for (const CategoryBytes& part : measured) {
    if (part.category == MemoryCategory::kAllocatorSlack) continue;
    CategoryBytes& projected = out.emplace_back(part);
    projected.bytes -= static_cast<std::int64_t>(saving[part.category]);
    if (part.category == MemoryCategory::kPersistent) {
      projected.bytes += weight_bytes_added;
      persistent_seen = true;
    }
  }
  if (!persistent_seen && weight_bytes_added > 0) out.push_back({MemoryCategory::kPersistent, weight_bytes_added});
  std::stable_sort(out.begin(), out.end(), [](const CategoryBytes& a, const CategoryBytes& b) { return a.bytes > b.bytes; });
  return out;
}

// The batch-dependent part of the peak (activations and temporaries) and the rest.
struct PeakSplit {
  double per_batch = 0;
  double fixed = 0;
};

PeakSplit splitPeak(const std::vector<CategoryBytes>& parts) {
  PeakSplit split;
  for (const CategoryBytes& part : parts) {
    if (part.category == MemoryCategory::kAllocatorSlack) continue;
    (scalesWithBatch(part.category) ? split.per_batch : split.fixed) += static_cast<double>(part.bytes);
  }
  return split;
}

std::optional<std::int64_t> batchThatFits(std::int64_t batch, const PeakSplit& split, double capacity) {
  if (capacity <= split.fixed) return 0;  // not even the fixed part fits
  if (split.per_batch <= 0) return std::nullopt;  // nothing grows with the batch
  return static_cast<std::int64_t>(std::floor(static_cast<double>(batch) * (capacity - split.fixed) / split.per_batch));
}

}  // namespace

std::optional<std::int64_t> recordedBatch(const trace::Trace& trace, const IterationSummary& iterations) {
  const auto window = iterations.steadyWindow(StepClock::kHost);
  EligibleOps eligible(trace);
  for (const trace::Range& range : trace.ranges) {
    if (window && (range.start_ns < window->first || range.start_ns >= window->second)) continue;
    if (range.phase != trace::Phase::kForward || range.shapes == trace::StringTable::kEmpty ||
        !eligible.isEligible(range)) {
      continue;
    }
    const std::optional<Shapes> shapes = parseShapes(trace.str(range.shapes));
    if (shapes && !shapes->empty() && !shapes->front().empty() && shapes->front().front() > 0) {
      return shapes->front().front();
    }
  }
  return std::nullopt;
}

AmpMemoryProjection projectAmpMemory(const trace::Trace& trace, const IterationSummary& iterations,
                                     const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                     const DeviceMemory& measured, const DeviceSpec* fit_device,
                                     HalfPrecisionRecipe recipe) {
  AmpMemoryProjection out;
  out.recipe = recipe;
  out.device = measured.device;
  const std::size_t peak = peakEvent(events, iterations, true);
  const std::int32_t peak_step = stepAt(iterations, events.events[peak]->time_ns);
  out.of_steps = !iterations.iterations.empty() && peak_step >= 0;
  out.measured_peak_at_ns = events.events[peak]->time_ns;
  out.measured_peak_allocated_bytes = events.allocated[peak];
  out.measured_by_category = liveSetAfter(events, origins, peak).by_category;
  if (computesInHalf(trace)) {
    out.note = "the run's matrix ops already read FP16/BF16 tensors: there is no FP32 peak to project from";
    return out;
  }
  out.applies = true;
  const WeightsAdded weights = weightBytesAdded(trace, iterations, events, origins, peak_step, recipe);
  out.cast_copy_bytes = weights.bytes;
  const auto counted = [&](std::size_t i) { return !out.of_steps || stepAt(iterations, events.events[i]->time_ns) >= 0; };
  out.projected_peak_allocated_bytes = projectedPeak(events, origins, counted) + out.cast_copy_bytes;
  out.projected_by_category =
      projectCategories(events, origins, out.measured_by_category, peak, out.cast_copy_bytes);
  out.note = recipe == HalfPrecisionRecipe::kAutocast
                 ? "activations and temporaries of the ops autocast runs in FP16/BF16 (and of the ops that keep "
                   "their input's type) take half their bytes; FP32-kept ops, weights, gradients and optimizer state "
                   "keep theirs; the cast cache adds half-precision copies of the weights " + weights.from
                 : "activations and temporaries take half their bytes except those of the ops kept in FP32; the "
                   "half model and its half gradients with FP32 master weights and gradients add one FP32 "
                   "parameter size " + weights.from + "; optimizer state keeps its bytes";
  out.batch = recordedBatch(trace, iterations);
  if (fit_device != nullptr) {
    // The GPU asked about, even where its memory is unknown (a row sold in several sizes): never
    // another one in its place.
    out.fit_capacity_bytes = static_cast<std::uint64_t>(std::max(0.0, fit_device->capacity_gib) * kBytesPerGib);
    out.fit_device = fit_device->name;
  } else if (measured.kind == trace::DeviceKind::kGpu && measured.capacity_bytes > 0) {
    out.fit_capacity_bytes = measured.capacity_bytes;
    out.fit_device = measured.name.empty() ? fmt::format("GPU {}", measured.device) : measured.name;
  }
  if (out.batch && out.fit_capacity_bytes > 0) {
    const double capacity = static_cast<double>(out.fit_capacity_bytes);
    out.batch_that_fits = batchThatFits(*out.batch, splitPeak(out.measured_by_category), capacity);
    out.amp_batch_that_fits = batchThatFits(*out.batch, splitPeak(out.projected_by_category), capacity);
  }
  return out;
}

}  // namespace ampscope::analyzer
