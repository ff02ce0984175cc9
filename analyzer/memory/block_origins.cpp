#include "analyzer/memory/block_origins.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/model/amp_op_policy.h"

namespace ampscope::analyzer {
namespace {

using trace::Phase;

const trace::Range* rangeOf(const trace::Trace& trace, trace::Index index) {
  return index == trace::kNone ? nullptr : &trace.ranges[static_cast<std::size_t>(index)];
}

Phase phaseOf(const trace::Trace& trace, const trace::MemoryEvent& event) {
  const trace::Range* range = rangeOf(trace, event.op_range);
  return range == nullptr ? Phase::kUnknown : range->phase;
}

// When each step's backward began: its first backward range (host clock); none where it has no
// backward (inference, or a step the trace cut).
constexpr std::int64_t kNoBackward = std::numeric_limits<std::int64_t>::max();

std::vector<std::int64_t> backwardStarts(const trace::Trace& trace, const IterationSummary& iterations) {
  std::vector<std::int64_t> starts(std::max<std::size_t>(1, iterations.iterations.size()), kNoBackward);
  for (const trace::Range& range : trace.ranges) {
    if (range.phase != Phase::kBackward) continue;
    const std::int32_t step = stepAt(iterations, range.start_ns);
    if (step >= 0) starts[static_cast<std::size_t>(step)] = std::min(starts[static_cast<std::size_t>(step)], range.start_ns);
  }
  return starts;
}

// What a block holds, from its lifetime. The op that frees a block is often none (PyTorch's
// autograd engine releases saved tensors between ops), so times decide, not the freeing op: a
// forward block freed before its step's backward began was a temporary, one that lived into the
// backward was kept for it; a backward block freed within its step (and not by the optimizer's
// zero_grad) was a temporary, one that outlived the step is a parameter gradient. In a step with
// no backward, a forward block freed within the step was a temporary. Outside every step: what
// lives to the end was made at setup (weights, optimizer state); what is freed belongs to work
// between or after the steps (an evaluation pass).
struct Lifetime {
  Phase allocated_in = Phase::kUnknown;
  std::int32_t step = -1;
  bool freed = false;
  std::int32_t freed_step = -1;
  std::int64_t freed_ns = 0;
  Phase freed_in = Phase::kUnknown;
};

MemoryCategory categoryOf(const Lifetime& life, std::int64_t backward_start_ns) {
  if (life.step < 0) return life.freed ? MemoryCategory::kOutsideSteps : MemoryCategory::kPersistent;
  const bool freed_in_step = life.freed && life.freed_step == life.step;
  switch (life.allocated_in) {
    case Phase::kForward:
      return freed_in_step && life.freed_ns < backward_start_ns ? MemoryCategory::kForwardTemporary
                                                                : MemoryCategory::kActivations;
    case Phase::kBackward:
      return freed_in_step && life.freed_in != Phase::kOptimizer ? MemoryCategory::kBackwardTemporary
                                                                 : MemoryCategory::kGradients;
    case Phase::kOptimizer: return MemoryCategory::kOptimizerState;
    default: return MemoryCategory::kUnattributed;
  }
}

// What the op range around an allocation says of it: its layer (else its outermost operator), its
// phase, and whether autocast keeps it in FP32.
BlockOrigin opOrigin(const trace::Trace& trace, trace::Index op_range) {
  const trace::Range& op = *rangeOf(trace, op_range);
  const trace::Range& top = *rangeOf(trace, topLevelOperator(trace, op_range));
  BlockOrigin origin;
  origin.pass = op.phase;
  origin.layer = op.layer != trace::StringTable::kEmpty ? std::string(trace.str(op.layer)) : operatorLabel(trace, top);
  // The allocation is usually made by a factory op (aten::empty) inside the op that decides its
  // dtype: the outermost operator is what autocast lists.
  origin.fp32_under_autocast = autocastKeepsFp32(opName(trace, top)) || autocastKeepsFp32(opName(trace, op));
  return origin;
}

}  // namespace

bool scalesWithBatch(MemoryCategory category) {
  return category == MemoryCategory::kActivations || category == MemoryCategory::kForwardTemporary ||
         category == MemoryCategory::kBackwardTemporary;
}

std::int32_t stepAt(const IterationSummary& iterations, std::int64_t time_ns) {
  const std::vector<Iteration>& steps = iterations.iterations;
  if (steps.empty()) return 0;
  const auto after = std::upper_bound(steps.begin(), steps.end(), time_ns,
                                      [](std::int64_t t, const Iteration& it) { return t < it.host_start_ns; });
  if (after == steps.begin()) return -1;
  const Iteration& step = *(after - 1);
  return time_ns < step.host_end_ns ? static_cast<std::int32_t>(after - 1 - steps.begin()) : -1;
}

std::vector<BlockOrigin> originsOf(const trace::Trace& trace, const IterationSummary& iterations,
                                   const DeviceEvents& device) {
  std::vector<BlockOrigin> origins;
  origins.reserve(device.blocks.size());
  const std::vector<std::int64_t> backward_start = backwardStarts(trace, iterations);
  std::unordered_map<trace::Index, BlockOrigin> by_op_range;
  for (const MemoryBlock& block : device.blocks) {
    const trace::MemoryEvent& allocation = *device.events[block.allocated_at];
    BlockOrigin origin;
    if (allocation.op_range != trace::kNone) {
      // Many blocks share an op range (a step allocates in a few hundred ops): worked out once each.
      const auto [known, fresh] = by_op_range.try_emplace(allocation.op_range);
      if (fresh) known->second = opOrigin(trace, allocation.op_range);
      origin.layer = known->second.layer;
      origin.pass = known->second.pass;
      origin.fp32_under_autocast = known->second.fp32_under_autocast;
    }
    origin.step = stepAt(iterations, allocation.time_ns);
    const std::int64_t step_backward =
        origin.step >= 0 ? backward_start[static_cast<std::size_t>(origin.step)] : kNoBackward;
    // The main thread waits while the backward runs: an op that reads as forward but allocates
    // after the step's backward began is the autograd engine's (PyTorch runs the gradients'
    // accumulation, aten::add, outside any backward node, where no phase is recorded).
    if (origin.pass == Phase::kForward && allocation.time_ns >= step_backward) origin.pass = Phase::kBackward;
    Lifetime life{.allocated_in = origin.pass, .step = origin.step};
    if (block.freed_at != MemoryBlock::kNeverFreed) {
      const trace::MemoryEvent& free = *device.events[block.freed_at];
      life.freed = true;
      life.freed_ns = free.time_ns;
      life.freed_step = stepAt(iterations, free.time_ns);
      life.freed_in = phaseOf(trace, free);
    }
    origin.category = categoryOf(life, step_backward);
    origins.push_back(std::move(origin));
  }
  return origins;
}

}  // namespace ampscope::analyzer
