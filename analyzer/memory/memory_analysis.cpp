#include "analyzer/memory/memory_analysis.h"

namespace ampscope::analyzer {

const char* memoryTotalsName(MemoryTotals totals) {
  switch (totals) {
    case MemoryTotals::kRecorded: return "recorded";
    case MemoryTotals::kReconstructed: return "reconstructed";
  }
  return "recorded";
}

const char* blockMatchingName(BlockMatching matching) {
  switch (matching) {
    case BlockMatching::kByAddress: return "address";
    case BlockMatching::kBySize: return "size";
  }
  return "address";
}

const char* memoryCategoryName(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::kActivations: return "activations";
    case MemoryCategory::kForwardTemporary: return "forward_temporary";
    case MemoryCategory::kGradients: return "gradients";
    case MemoryCategory::kBackwardTemporary: return "backward_temporary";
    case MemoryCategory::kOptimizerState: return "optimizer_state";
    case MemoryCategory::kPersistent: return "persistent";
    case MemoryCategory::kUnattributed: return "unattributed";
    case MemoryCategory::kBeforeRecording: return "before_recording";
    case MemoryCategory::kAllocatorSlack: return "allocator_slack";
  }
  return "unattributed";
}

MemoryAnalysis analyzeMemory(const trace::Trace& trace, const IterationSummary& iterations,
                             const DeviceSpec* fit_device) {
  (void)trace;
  (void)iterations;
  (void)fit_device;
  return {};  // filled in by the analysis that follows this skeleton
}

}  // namespace ampscope::analyzer
