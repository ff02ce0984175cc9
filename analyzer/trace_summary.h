#pragma once
// A compact account of one imported and correlated trace: what it holds, how much of it is tied
// together, and where the GPU time went by operator and by layer.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/amdahl.h"
#include "analyzer/amp_numerics.h"
#include "analyzer/correlator.h"
#include "analyzer/data_pipeline.h"
#include "analyzer/host_stalls.h"
#include "analyzer/iterations.h"
#include "analyzer/shape_checks.h"
#include "analyzer/tensor_core_rules.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DeviceSummary {
  std::uint32_t id = 0;
  std::string name;
  std::string compute_capability;  // "8.0"; empty when the trace does not say
  std::int32_t sm_count = 0;
  std::uint64_t kernels = 0;
  std::int64_t kernel_time_ns = 0;
  trace::DeviceKind kind = trace::DeviceKind::kGpu;  // kCpu: its "kernels" are host ops
};

struct KernelTime {
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
  TensorCoreVerdict verdict;
};

// GPU time of the kernels launched under one operator (or layer), with its heaviest kernels.
struct GroupTime {
  std::string name;
  std::string phase;            // the phase most of the time ran in
  std::uint64_t op_calls = 0;   // distinct operator ranges that launched GPU work
  std::uint64_t kernels = 0;
  std::int64_t gpu_time_ns = 0;
  std::int64_t tensor_core_time_ns = 0;
  std::vector<KernelTime> top_kernels;
};

// Time of one layer in one pass (forward, backward, ...): the per-layer view of a training step.
struct LayerPassTime {
  std::string layer;
  std::string phase;           // "forward", "backward", ... as the layer's op ranges say
  std::uint64_t calls = 0;     // op ranges of the layer in this pass that launched work
  std::uint64_t kernels = 0;
  std::int64_t time_ns = 0;    // their kernels' (or, on the CPU, host ops') time
  std::int64_t tensor_core_time_ns = 0;
};

// GPU time in kernels that use Tensor Cores, by the kernel-name rules.
struct TensorCoreTime {
  std::int64_t time_ns = 0;
  double fraction = 0.0;  // of all kernel time
  std::map<std::string, std::int64_t> by_precision;  // Tensor Core time per math precision
  int rules_version = 0;
};

struct TraceSummary {
  std::string format;
  std::string format_detail;
  std::vector<DeviceSummary> devices;  // devices that ran kernels, then the others
  std::uint64_t threads = 0;
  std::uint64_t ranges = 0;
  std::uint64_t launches = 0;
  std::uint64_t memory_ops = 0;
  std::uint64_t synchronizations = 0;
  CorrelationCounts correlation;
  std::int64_t gpu_kernel_time_ns = 0;  // sum of kernel durations
  std::int64_t gpu_busy_ns = 0;         // union of kernel intervals over all streams
  std::int64_t trace_span_ns = 0;       // first to last event
  std::int64_t memcpy_time_ns = 0;
  // Every device that ran work is the host CPU (the trainer's CPU backend): kernels are host ops,
  // and Tensor Core figures (time, projection) do not apply; they need a GPU run.
  bool recorded_on_cpu = false;
  std::vector<GroupTime> top_operators;
  std::vector<GroupTime> top_layers;
  // The layers of top_layers split by pass, in the order the trace first ran them (model order).
  std::vector<LayerPassTime> layer_passes;
  TensorCoreTime tensor_cores;
  std::vector<ShapeCheck> shape_checks;  // eligible ops by GPU time, top_n of them
  IterationSummary iterations;
  DataPipelineExposure data_pipeline;
  AmdahlProjection amdahl;
  HostStalls host_stalls;
  AmpNumerics amp_numerics;
  trace::ImportStats import_stats;
};

// top_n bounds the operator and layer lists and each group's kernel list.
TraceSummary summarizeTrace(const trace::Trace& trace, const CorrelationCounts& counts,
                            std::size_t top_n = 10);

}  // namespace ampscope::analyzer
