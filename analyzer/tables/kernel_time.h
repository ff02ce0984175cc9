#pragma once
// Kernel time by Tensor Core verdict (and each step's share of it), by top-level operator and by
// layer: sums over the per-kernel table (model/kernel_attribution.h), in one pass.
//
// The layer groups here (GroupTime: a named layer's time over all its passes, with its kernels)
// and the layer table's rows (layer_table.h: a layer, or a top-level operator where the trace names
// none, per pass, with its shapes, state and model) add up the same kernels by the same origins;
// they stay two tables because the views show both, the first as the heaviest layers with their
// kernels, the second in model order.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/model/kernel_attribution.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct KernelTime {
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
  TensorCoreVerdict verdict;
};

// GPU time of the kernels launched under one operator (or layer), with all its kernels.
struct GroupTime {
  std::string name;
  std::string phase;            // the phase most of the time ran in
  std::uint64_t op_calls = 0;   // distinct operator ranges that launched GPU work
  std::uint64_t kernels = 0;
  std::int64_t gpu_time_ns = 0;
  std::int64_t tensor_core_time_ns = 0;
  std::vector<KernelTime> kernel_times;  // every kernel it launched, heaviest first
};

struct StepKernelTime {
  std::int64_t kernel_ns = 0;
  std::int64_t tensor_core_ns = 0;
};

// GPU time in kernels that use Tensor Cores, by the kernel-name rules and the evidence beyond them
// (tensor_core_evidence.h), and the time whose verdict stays unknown.
struct TensorCoreTime {
  std::int64_t time_ns = 0;
  double fraction = 0.0;  // of all kernel time
  std::map<std::string, std::int64_t> by_precision;  // Tensor Core time per math precision
  // Tensor Core time by how sure its verdicts are; the four add up to time_ns. measured_ns: the
  // tensor pipe's counters showed it busy (analyzer/counters/).
  std::int64_t measured_ns = 0;
  std::int64_t high_confidence_ns = 0;
  std::int64_t medium_confidence_ns = 0;
  std::int64_t low_confidence_ns = 0;
  // Matrix kernels no rule and no evidence can place: neither Tensor Core nor CUDA-core time.
  std::int64_t unknown_time_ns = 0;
  double unknown_fraction = 0.0;  // of all kernel time
  int rules_version = 0;
  // Per iteration (aligned with IterationSummary::iterations): kernel time inside the step, and
  // of it the time of kernels whose verdict is Tensor Core; a kernel across a step's edge counts
  // the part inside. What a timeline's "Tensor Core share per step" counter shows.
  std::vector<StepKernelTime> per_step;
};

struct KernelTimeTables {
  std::int64_t kernel_time_ns = 0;   // every kernel's duration, summed
  TensorCoreTime tensor_cores;
  std::vector<GroupTime> operators;  // every top-level operator that ran GPU work, heaviest first
  std::vector<GroupTime> layers;     // every named layer, heaviest first; empty when none is named
};

KernelTimeTables measureKernelTime(const trace::Trace& trace, const KernelAttribution& kernels,
                                   const IterationSummary& iterations);

}  // namespace ampscope::analyzer
