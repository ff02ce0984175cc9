#pragma once
// The complete analysis of one imported and correlated trace: what it holds, how much of it is
// tied together, where the GPU time went by operator, layer and kernel, the shape checks, the
// step's parts and the AMP projection. Every table is whole: views (cli/, reports/, gui/,
// python/) choose what to show and cut to a top N; none of them recomputes anything.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/analysis_options.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/unfused_attention.h"
#include "analyzer/model/what_if_device.h"
#include "analyzer/steps/amdahl.h"
#include "analyzer/steps/amp_numerics.h"
#include "analyzer/steps/collectives.h"
#include "analyzer/steps/data_pipeline.h"
#include "analyzer/steps/host_stalls.h"
#include "analyzer/steps/host_step_split.h"
#include "analyzer/steps/launch_queue.h"
#include "analyzer/steps/step_split.h"
#include "analyzer/steps/tf32_projection.h"
#include "analyzer/tables/kernel_table.h"
#include "analyzer/tables/layer_table.h"
#include "analyzer/tables/shape_checks.h"
#include "base/stage_callback.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DeviceSummary {
  std::uint32_t id = 0;
  std::string name;
  std::string compute_capability;  // "8.0"; empty when the trace does not say
  std::int32_t sm_count = 0;
  std::uint64_t kernels = 0;
  std::int64_t kernel_time_ns = 0;
  std::int64_t busy_ns = 0;  // union of its kernels' intervals over its streams
  trace::DeviceKind kind = trace::DeviceKind::kGpu;  // kCpu: its "kernels" are host ops
};

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
  // Tensor Core time by how sure its verdicts are; the three add up to time_ns.
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
  std::int64_t gpu_busy_ns = 0;         // union of kernel intervals over all streams and devices
  std::int64_t trace_span_ns = 0;       // first to last event
  std::int64_t memcpy_time_ns = 0;
  // Every device that ran work is the host CPU (the trainer's CPU backend): kernels are host ops,
  // and Tensor Core figures (time, projection) do not apply; they need a GPU run.
  bool recorded_on_cpu = false;
  std::vector<GroupTime> operators;  // every top-level operator that ran GPU work, heaviest first
  std::vector<GroupTime> layers;     // every named layer, heaviest first; empty when none is named
  LayerTable layer_table;            // every layer (or operator) x pass, in model order
  std::vector<KernelRow> kernels;    // every kernel name, heaviest first
  TensorCoreTime tensor_cores;
  std::vector<ShapeCheck> shape_checks;  // every eligible op call shape, by GPU time
  // Attention computed in pieces (matrix op, softmax, matrix op), by shape, largest gain first.
  std::vector<UnfusedAttention> unfused_attention;
  IterationSummary iterations;
  DataPipelineExposure data_pipeline;
  DeviceChoice device;              // the recorded GPU's row, and why (unknown: spec is null)
  OpPerformance op_performance;     // every op call shape: work, achieved rate, bound, AMP prediction
  AmdahlProjection amdahl;
  Tf32Projection tf32;              // allow_tf32 instead: FP32 CUDA-core matrix math on TF32 Tensor Cores
  WhatIfProjection what_if;         // on another GPU (--gpu, or a CPU run's default); empty otherwise
  std::vector<PassPart> step_by_pass;  // the steady step by the pass of its ops
  HostStalls host_stalls;
  LaunchQueue launch_queue;         // the queue between host and GPU, and who sets the pace
  Communication communication;      // collectives: time, overlap with compute, exposed, bandwidth
  std::vector<StepSplit> step_splits;  // each iteration: compute, exposed communication, data, idle
  AmpNumerics amp_numerics;
  trace::ImportStats import_stats;
  trace::DistributedInfo distributed;  // the rank and world size the trace records, if any
  std::optional<std::int64_t> epoch_offset_ns;  // trace::Trace::epoch_offset_ns: timestamps + it = Unix epoch
};

// `stage_done` hears as each stage ends (base/stage_callback.h), from the thread that ran it: the
// contents and steps, the kernel verdicts proven, the kernel tables, the host side, the AMP
// projection.
TraceSummary summarizeTrace(const trace::Trace& trace, const CorrelationCounts& counts,
                            const AnalysisOptions& options = {}, const StageCallback& stage_done = {});

}  // namespace ampscope::analyzer
