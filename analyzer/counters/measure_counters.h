#pragma once
// The counters stage: reads the trace's profiled ranges and metric samples into CounterAnalysis
// (counter_analysis.h), and gives each kernel name the tensor pipe measured a verdict of
// confidence kMeasured, which the kernel verdicts take before the rate and the name.
//
// A name's measured verdict:
//  - per-kernel counters (exact): Tensor Core where any range of the name counted a busy tensor
//    cycle or an MMA instruction; CUDA cores where none did;
//  - samples (sampled_activity.h): Tensor Core where, in the samples it had to itself, the pipe was
//    busy at least kSampledBusyShare of its kernel time; not, where those samples read
//    kSampledIdleShare or less (one step of Nsight Systems' integer percentages: a reading of 1%
//    cannot be told from none); between, no verdict.
// Why these numbers: docs/hardware_counters.md.

#include <unordered_map>

#include "analyzer/counters/counter_analysis.h"
#include "analyzer/verdicts/tensor_core_evidence.h"
#include "analyzer/verdicts/tensor_core_rules.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

inline constexpr double kSampledBusyShare = 0.05;
inline constexpr double kSampledIdleShare = 0.01;

struct CounterMeasurement {
  CounterAnalysis analysis;
  std::unordered_map<trace::StringId, TensorCoreVerdict> verdicts;  // TensorCoreEvidence::by_measurement
};

// `device`: the GPU the name verdicts are read for (a disagreement compares with them).
CounterMeasurement measureCounters(const trace::Trace& trace, const VerdictDevice& device,
                                   const TensorCoreRules& rules = TensorCoreRules::builtin());

}  // namespace ampscope::analyzer
