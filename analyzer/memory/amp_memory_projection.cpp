#include "analyzer/memory/amp_memory_projection.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/eligible_ops.h"
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

// What the recipe adds for the weights, from the FP32 parameter bytes: the peak step's parameter
// gradients (a gradient has its parameter's size). Autocast: a half-precision copy of the weights
// of the ops it runs in half, held by the cast cache from the forward's first use to the backward
// that reads them. Master weights: the half model and its half gradients replace the FP32 ones,
// and the FP32 master weights and gradients are added: one FP32 parameter size more.
std::int64_t weightBytesAdded(const DeviceEvents& events, const std::vector<BlockOrigin>& origins, std::int32_t step,
                              HalfPrecisionRecipe recipe) {
  double bytes = 0;
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    const BlockOrigin& origin = origins[b];
    if (origin.step != step || origin.category != MemoryCategory::kGradients) continue;
    const double parameter_bytes = static_cast<double>(events.blocks[b].bytes);
    if (recipe == HalfPrecisionRecipe::kMasterWeights) bytes += parameter_bytes;
    else if (!origin.fp32_under_autocast) bytes += kHalfOfFp32 * parameter_bytes;
  }
  return static_cast<std::int64_t>(bytes);
}

// Replays the device's events with each block's bytes scaled by its factor: the projected total
// after each event is the measured one less what the live blocks would not take.
std::int64_t projectedPeak(const DeviceEvents& events, const std::vector<BlockOrigin>& origins) {
  std::int64_t saving = 0;
  std::int64_t peak = 0;
  std::vector<bool> started(events.blocks.size(), false);
  std::size_t next_block = 0;
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    const auto freed = events.block_of_free[i];
    if (freed >= 0) {
      const auto b = static_cast<std::size_t>(freed);
      saving -= events.blocks[b].bytes - static_cast<std::int64_t>(ampFactor(origins[b]) * static_cast<double>(events.blocks[b].bytes));
    }
    while (next_block < events.blocks.size() && events.blocks[next_block].allocated_at == i) {
      const MemoryBlock& block = events.blocks[next_block];
      saving += block.bytes - static_cast<std::int64_t>(ampFactor(origins[next_block]) * static_cast<double>(block.bytes));
      ++next_block;
    }
    peak = std::max(peak, events.allocated[i] - saving);
  }
  return peak;
}

std::vector<CategoryBytes> projectCategories(const DeviceEvents& events, const std::vector<BlockOrigin>& origins,
                                             const DeviceMemory& measured, std::int64_t cast_copy) {
  // The peak's categories, each block scaled; the parts no block explains keep their bytes.
  std::map<MemoryCategory, double> saving;
  std::size_t peak = 0;
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    if (events.allocated[i] > events.allocated[peak]) peak = i;
  }
  for (std::size_t b = 0; b < events.blocks.size(); ++b) {
    const MemoryBlock& block = events.blocks[b];
    const bool live = block.allocated_at <= peak && (block.freed_at == MemoryBlock::kNeverFreed || block.freed_at > peak);
    if (live) saving[origins[b].category] += (1.0 - ampFactor(origins[b])) * static_cast<double>(block.bytes);
  }
  std::vector<CategoryBytes> out;
  for (const CategoryBytes& part : measured.peak_by_category) {
    if (part.category == MemoryCategory::kAllocatorSlack) continue;  // the allocator's, not the model's
    out.push_back({part.category, part.bytes - static_cast<std::int64_t>(saving[part.category])});
  }
  if (cast_copy > 0) {
    const auto persistent = std::find_if(out.begin(), out.end(), [](const CategoryBytes& c) {
      return c.category == MemoryCategory::kPersistent;
    });
    if (persistent != out.end()) persistent->bytes += cast_copy;
    else out.push_back({MemoryCategory::kPersistent, cast_copy});
  }
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
  out.measured_peak_allocated_bytes = measured.peak_allocated_bytes;
  out.measured_by_category = measured.peak_by_category;
  if (computesInHalf(trace)) {
    out.note = "the run's matrix ops already read FP16/BF16 tensors: there is no FP32 peak to project from";
    return out;
  }
  const std::int32_t peak_step = stepAt(iterations, measured.peak_at_ns);
  out.applies = true;
  out.cast_copy_bytes = weightBytesAdded(events, origins, peak_step, recipe);
  out.projected_peak_allocated_bytes = projectedPeak(events, origins) + out.cast_copy_bytes;
  out.projected_by_category = projectCategories(events, origins, measured, out.cast_copy_bytes);
  out.note = recipe == HalfPrecisionRecipe::kAutocast
                 ? "activations and temporaries of the ops autocast runs in FP16/BF16 (and of the ops that keep "
                   "their input's type) take half their bytes; FP32-kept ops, weights, gradients and optimizer state "
                   "keep theirs; the cast cache adds half-precision copies of the weights (half the parameter "
                   "gradients' bytes)"
                 : "activations and temporaries take half their bytes except those of the ops kept in FP32; the "
                   "half model and its half gradients with FP32 master weights and gradients add one FP32 "
                   "parameter size (the parameter gradients' bytes); optimizer state keeps its bytes";
  out.batch = recordedBatch(trace, iterations);
  if (fit_device != nullptr && fit_device->capacity_gib > 0) {
    out.fit_capacity_bytes = static_cast<std::uint64_t>(fit_device->capacity_gib * kBytesPerGib);
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
