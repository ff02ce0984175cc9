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
#include "analyzer/counters/counter_analysis.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/memory/memory_analysis.h"
#include "analyzer/model/kernel_attribution.h"
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
#include "analyzer/tables/kernel_time.h"
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
  // Whose kernel is this: per trace kernel, its verdict, origin, op row and step, which every
  // table above is summed from (model/kernel_attribution.h).
  KernelAttribution kernel_attribution;
  AmdahlProjection amdahl;
  Tf32Projection tf32;              // allow_tf32 instead: FP32 CUDA-core matrix math on TF32 Tensor Cores
  WhatIfProjection what_if;         // on another GPU (--gpu, or a CPU run's default); empty otherwise
  std::vector<PassPart> step_by_pass;  // the steady step by the pass of its ops
  HostStalls host_stalls;
  LaunchQueue launch_queue;         // the queue between host and GPU, and who sets the pace
  Communication communication;      // collectives: time, overlap with compute, exposed, bandwidth
  std::vector<StepSplit> step_splits;  // each iteration: compute, exposed communication, data, idle
  AmpNumerics amp_numerics;
  MemoryAnalysis memory;            // memory over time, the peak, and what AMP would save (memory/)
  CounterAnalysis counters;         // hardware counters: measured Tensor Core use (counters/)
  trace::ImportStats import_stats;
  trace::DistributedInfo distributed;  // the rank and world size the trace records, if any
  std::optional<std::int64_t> epoch_offset_ns;  // trace::Trace::epoch_offset_ns: timestamps + it = Unix epoch
  std::optional<trace::ReadSpan> read_window;   // trace::Trace::read_window: only this part was read (--window)
};

// `stage_done` hears as each stage ends (base/stage_callback.h), from the thread that ran it: the
// contents and steps, the kernel verdicts proven, the kernel tables, the host side, the AMP
// projection.
TraceSummary summarizeTrace(const trace::Trace& trace, const CorrelationCounts& counts,
                            const AnalysisOptions& options = {}, const StageCallback& stage_done = {});

}  // namespace ampscope::analyzer
