#pragma once
// Where a steady step's time goes by the pass of the work in it: the time of the ops (kernels, or
// host ops on a CPU run) launched in each pass, the exposed data loading, and the rest of the step
// between them. On a CPU run it is the step's breakdown (there is no GPU to project); on a GPU run
// it says which pass the kernels belong to.

#include <cstdint>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/steps/data_pipeline.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

enum class PassPartKind : std::uint8_t {
  kForwardOps, kBackwardOps, kLossScaleOps, kOptimizerOps, kDataPhaseOps, kOtherOps,
  kExposedDataLoading, kBetweenOps
};
const char* passPartKindName(PassPartKind kind);  // "forward_ops", ...
const char* passPartLabel(PassPartKind kind);     // "forward ops", ...

struct PassPart {
  PassPartKind kind = PassPartKind::kOtherOps;
  std::int64_t ns_per_step = 0;
};

// The parts with time, in PassPartKind order; empty without steady steps. Ops count in the step
// whose host work started them, as the Amdahl projection counts kernels. Ops on several threads
// or streams can overlap, so "between ops" is what the others leave of the step, never negative.
std::vector<PassPart> splitStepByPass(const trace::Trace& trace, const IterationSummary& iterations,
                                      const DataPipelineExposure& data_pipeline);

}  // namespace ampscope::analyzer
