#include "analyzer/memory/block_origins.h"

#include <algorithm>

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

// From lifetimes: a forward block that a backward op frees was kept for the backward; one the
// forward itself frees was a temporary; a backward block that outlives the backward is a parameter
// gradient. Outside every step: setup (weights, optimizer state, the data loader's buffers).
MemoryCategory categoryOf(Phase allocated_in, bool in_step, bool freed, Phase freed_in) {
  if (!in_step) return MemoryCategory::kPersistent;
  switch (allocated_in) {
    case Phase::kForward:
      return freed && freed_in == Phase::kForward ? MemoryCategory::kForwardTemporary : MemoryCategory::kActivations;
    case Phase::kBackward:
      return freed && freed_in == Phase::kBackward ? MemoryCategory::kBackwardTemporary : MemoryCategory::kGradients;
    case Phase::kOptimizer: return MemoryCategory::kOptimizerState;
    default: return MemoryCategory::kUnattributed;
  }
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
  for (const MemoryBlock& block : device.blocks) {
    const trace::MemoryEvent& allocation = *device.events[block.allocated_at];
    BlockOrigin origin;
    if (const trace::Range* op = rangeOf(trace, allocation.op_range)) {
      origin.pass = op->phase;
      const trace::Range& top = *rangeOf(trace, topLevelOperator(trace, allocation.op_range));
      origin.layer = op->layer != trace::StringTable::kEmpty ? std::string(trace.str(op->layer))
                                                               : operatorLabel(trace, top);
      // The allocation is usually made by a factory op (aten::empty) inside the op that decides
      // its dtype: the outermost operator is what autocast lists.
      origin.fp32_under_autocast = autocastKeepsFp32(opName(trace, top)) || autocastKeepsFp32(opName(trace, *op));
    }
    origin.step = stepAt(iterations, allocation.time_ns);
    const bool freed = block.freed_at != MemoryBlock::kNeverFreed;
    const Phase freed_in = freed ? phaseOf(trace, *device.events[block.freed_at]) : Phase::kUnknown;
    origin.category = categoryOf(origin.pass, origin.step >= 0, freed, freed_in);
    origins.push_back(std::move(origin));
  }
  return origins;
}

}  // namespace ampscope::analyzer
