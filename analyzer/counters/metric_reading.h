#pragma once
// What a hardware metric's name says it measures. CUPTI and Nsight Compute name metrics
// `unit__counter.rollup.submetric` (Perfworks: "sm__pipe_tensor_op_hmma_cycles_active.avg.
// pct_of_peak_sustained_elapsed"); Nsight Systems' GPU metrics carry labels ("Tensor Active
// [Throughput %]"). Read from NVIDIA's metric documentation, not from any one trace:
// docs/hardware_counters.md lists the names and why each is read as it is.

#include <cstdint>
#include <string_view>

#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::analyzer {

enum class MetricMeaning : std::uint8_t {
  kOther,                  // recorded and summed, not read
  kTensorPipeActive,       // cycles (or the share of cycles) a tensor pipe was busy
  kTensorInstructions,     // MMA instructions issued to a tensor pipe
  kSmActive,               // cycles (or the share) an SM had at least one warp
  kCyclesElapsed,          // elapsed cycles: the denominator of the cycle counts
  kCudaCoreFpInstructions  // per-thread FP add/mul/FMA instructions on CUDA cores
};

// The value's unit: a count (cycles, instructions), a percentage (0..100), a ratio (0..1).
enum class MetricUnit : std::uint8_t { kUnknown, kCount, kPercent, kRatio };

// How the counter's per-unit values were combined: over all units (sum), their mean (avg), ...
enum class MetricRollup : std::uint8_t { kNone, kSum, kAvg, kMin, kMax };

struct MetricReading {
  MetricMeaning meaning = MetricMeaning::kOther;
  MetricUnit unit = MetricUnit::kUnknown;
  MetricRollup rollup = MetricRollup::kNone;
  // kCudaCoreFpInstructions: FP16, FP32-SIMT or FP64, and the operations one instruction does
  // per thread (2 for an FMA, 1 for an add or a mul).
  MathPrecision precision = MathPrecision::kUnknown;
  int operations = 0;
  // kTensorPipeActive / kTensorInstructions: which pipe: "hmma", "imma", "dmma", "gmma", ...;
  // "" for the whole tensor pipe.
  std::string_view pipe;

  bool operator==(const MetricReading&) const = default;
};

MetricReading readMetricName(std::string_view name);

// Whether a value is one its unit allows: a number; a percentage within 0..100 and a ratio within
// 0..1 (a hair over, as rounding gives, is allowed); a count not negative. Values that are not are
// counted as not understood and never read.
bool valueFitsUnit(const MetricReading& reading, double value);

const char* metricMeaningName(MetricMeaning meaning);  // "tensor_pipe_active", ...

}  // namespace ampscope::analyzer
