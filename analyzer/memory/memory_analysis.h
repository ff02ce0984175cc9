#pragma once
// Memory over time per device, from the trace's memory events (trace::MemoryEvent): the peak and
// what is live at it by layer and category, the activations a step's forward keeps for its
// backward, and what automatic mixed precision would do to the peak and to the batch that fits.
// Measured and inferred figures are labelled as such; docs/memory.md says where each comes from
// and where it can be wrong.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/core/device_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Where a device's allocated total comes from.
enum class MemoryTotals : std::uint8_t {
  kRecorded,       // the allocator's own totals, recorded with each event (measured)
  kReconstructed,  // summed from the events' sizes, counting from the lowest the sum reaches (inferred)
};
// "recorded", "reconstructed"
const char* memoryTotalsName(MemoryTotals totals);

// How a free was matched to the allocation it ends, and so how each block's lifetime is known.
enum class BlockMatching : std::uint8_t {
  kByAddress,  // the events record addresses: a free ends the live block at its address (measured)
  kBySize,     // no addresses: a free ends the latest live block of its size on its device (inferred)
};
// "address", "size"
const char* blockMatchingName(BlockMatching matching);

// What a block live at the peak holds, from the phase of the op that allocated it and when it was
// freed (docs/memory.md); every category but kAllocatorSlack and kBeforeRecording is inferred
// from lifetimes, the trace never says it.
enum class MemoryCategory : std::uint8_t {
  kActivations,      // allocated in a step's forward, still live in (or freed during) its backward
  kForwardTemporary, // allocated in forward and freed before forward ended
  kGradients,        // allocated in backward and live past its end (parameter gradients)
  kBackwardTemporary,// allocated in backward and freed before it ended (activation gradients, workspace)
  kOptimizerState,   // allocated by the optimizer
  kPersistent,       // allocated outside every step and live to the end (weights, optimizer state made at setup)
  kUnattributed,     // allocated in a step by an op of unknown phase
  kOutsideSteps,     // allocated outside every step and freed before the trace ended (an
                     // evaluation pass, a checkpoint, the setup's temporaries)
  kBeforeRecording,  // allocated before the first event, so unseen: the least the sums imply
  kAllocatorSlack,   // reserved by the allocator but not allocated (reserved - allocated)
};
inline constexpr int kMemoryCategoryCount = 10;
// "activations", "forward_temporary", "gradients", "backward_temporary", "optimizer_state",
// "persistent", "unattributed", "outside_steps", "before_recording", "allocator_slack"
const char* memoryCategoryName(MemoryCategory category);

// One point of the timeline: the totals just after an event.
struct MemorySample {
  std::int64_t time_ns = 0;
  std::int64_t allocated_bytes = 0;
  std::int64_t reserved_bytes = -1;  // -1: not recorded
};

struct CategoryBytes {
  MemoryCategory category = MemoryCategory::kUnattributed;
  std::int64_t bytes = 0;
};

// Bytes allocated by one layer (or, where the trace names no layers, one top-level operator).
struct LayerBytes {
  std::string layer;                 // "" where the allocating op is not known
  trace::Phase pass = trace::Phase::kUnknown;  // of the op that allocated them
  std::int64_t bytes = 0;
  std::uint64_t blocks = 0;
};

// One step's memory: its peak, and what its forward allocated that its backward freed.
struct StepMemory {
  std::int64_t number = -1;              // Iteration::number
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t peak_at_ns = 0;
  std::int64_t saved_for_backward_bytes = 0;  // activations: allocated in forward, freed in backward
};

// One block's life, for what is live at any moment (liveByLayerAt).
struct MemoryBlockSpan {
  static constexpr std::int64_t kLiveToTheEnd = std::numeric_limits<std::int64_t>::max();
  std::int64_t allocated_ns = 0;
  std::int64_t freed_ns = kLiveToTheEnd;
  std::int64_t bytes = 0;
  std::int32_t layer = 0;  // into DeviceMemory::block_layers
  trace::Phase pass = trace::Phase::kUnknown;
  MemoryCategory category = MemoryCategory::kUnattributed;
};

struct DeviceMemory {
  trace::DeviceKind kind = trace::DeviceKind::kGpu;
  std::uint32_t device = 0;
  std::string name;                       // the trace's device name; "" when it gives none
  std::uint64_t capacity_bytes = 0;       // the device's memory as recorded; 0: unknown
  MemoryTotals totals = MemoryTotals::kRecorded;
  BlockMatching matching = BlockMatching::kByAddress;
  std::uint64_t events = 0;
  std::int64_t before_recording_bytes = 0;  // reconstructed totals: the least allocated before the first event
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t peak_reserved_bytes = -1;    // the largest reserved total; -1: not recorded
  std::int64_t peak_at_ns = 0;              // when allocated first reached its peak
  std::int64_t peak_step = -1;              // the step (Iteration::number) holding it; -1: none
  std::vector<MemorySample> timeline;       // every event's totals, in time order
  std::vector<CategoryBytes> peak_by_category;  // sums to the peak (+ slack), largest first
  std::vector<LayerBytes> peak_by_layer;        // live at the peak, largest first
  std::vector<StepMemory> steps;                // the steps in which this device had events
  std::vector<LayerBytes> saved_for_backward_by_layer;  // in the peak's step (or the last step), largest first
  std::vector<MemoryBlockSpan> blocks;      // every block seen, in allocation order
  std::vector<std::string> block_layers;    // the layers blocks name ("" unknown), each once
};

// What is live on the device at time_ns (allocated at or before it, freed after it), by layer and
// pass, largest first: the blocks seen only (the part of the total no block explains is not in it).
std::vector<LayerBytes> liveByLayerAt(const DeviceMemory& device, std::int64_t time_ns);

// What the peak would be under autocast, from a run that did not use it (docs/memory.md):
// half-precision outputs of the ops autocast runs in FP16/BF16 (and of the ops that pass their
// input's type through) take half the bytes, blocks of ops autocast keeps in FP32 keep theirs,
// FP32 weights, gradients and optimizer state stay, and the cast cache adds a half-precision copy
// of the weights the forward reads. The timeline is replayed with each block so scaled.
// Which half-precision recipe a projection is for.
enum class HalfPrecisionRecipe : std::uint8_t {
  kAutocast,       // torch.autocast: FP32 weights, half copies in the cast cache, FP32 gradients
  kMasterWeights,  // a half model with FP32 master weights (apex O2, the trainer's fp16-master):
                   // weights and their gradients in half, plus FP32 master weights and gradients
};
// "autocast", "master_weights"
const char* halfPrecisionRecipeName(HalfPrecisionRecipe recipe);

struct AmpMemoryProjection {
  HalfPrecisionRecipe recipe = HalfPrecisionRecipe::kAutocast;
  bool applies = false;
  std::string note;  // why there is none ("the run already uses half precision"), or what it assumes
  std::uint32_t device = 0;                 // the device projected (its DeviceMemory)
  // The peak projected (measured here even where the projection does not apply, so that a run in
  // half precision can be scored against another's projection): the highest inside the steps (the training step's, which sets the batch;
  // an evaluation pass or the setup outside them may peak higher, and DeviceMemory says so), or
  // the trace's where it has no steps.
  bool of_steps = false;
  std::int64_t measured_peak_at_ns = 0;
  std::int64_t measured_peak_allocated_bytes = 0;
  std::int64_t projected_peak_allocated_bytes = 0;
  // What the recipe adds for the weights: autocast, their half-precision copies (half the FP32
  // parameter bytes of the ops it runs in half); master weights, the FP32 master copy and its
  // gradient less the half model and gradient (one FP32 parameter size). The FP32 parameter bytes
  // are read from the peak step's parameter gradients (a gradient has its parameter's size).
  std::int64_t cast_copy_bytes = 0;
  std::vector<CategoryBytes> measured_by_category;   // live at that peak
  std::vector<CategoryBytes> projected_by_category;
  // The batch: the first dimension of the first input of a step's first operator with shapes;
  // nullopt where no op records shapes.
  std::optional<std::int64_t> batch;
  std::uint64_t fit_capacity_bytes = 0;     // the memory the batch must fit in; 0: unknown
  std::string fit_device;                   // whose memory that is: the recorded device, or --gpu NAME
  // The largest batch that fits at the same per-sample footprint (the peak's batch-dependent part:
  // activations and temporaries) before and after AMP; nullopt where the batch or the capacity is unknown.
  std::optional<std::int64_t> batch_that_fits;
  std::optional<std::int64_t> amp_batch_that_fits;
};

struct MemoryAnalysis {
  std::vector<DeviceMemory> devices;  // devices with events: GPUs first, by ordinal, then the host
  // The device the headline numbers are of: the GPU with the highest peak, else the host (a CPU
  // run of the trainer); -1 when the trace has no memory events.
  int primary = -1;
  AmpMemoryProjection amp;             // HalfPrecisionRecipe::kAutocast
  AmpMemoryProjection master_weights;  // HalfPrecisionRecipe::kMasterWeights
  // Events that could not be made sense of (a free that ends no block, an allocation at a live
  // address), by reason, and where each was first met: the summary adds them to import_stats.
  std::map<std::string, std::uint64_t> not_understood;
  std::map<std::string, std::string> first_place;

  const DeviceMemory* primaryDevice() const {
    return primary < 0 ? nullptr : &devices[static_cast<std::size_t>(primary)];
  }
};

// `trace` correlated (memory events' op ranges filled); `fit_device`: the GPU whose memory the
// batch must fit in when not the recorded one (--gpu NAME), null for the recorded one.
MemoryAnalysis analyzeMemory(const trace::Trace& trace, const IterationSummary& iterations,
                             const DeviceSpec* fit_device = nullptr);

}  // namespace ampscope::analyzer
