#include "analyzer/counters/range_reading.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "analyzer/counters/metric_reading.h"

namespace ampscope::analyzer {
namespace {

struct ReadValue {
  std::string_view name;
  MetricReading reading;
  double value = 0.0;
};

std::vector<ReadValue> readValues(const trace::Trace& trace, const trace::KernelMetrics& range) {
  std::vector<ReadValue> out;
  out.reserve(range.values.size());
  for (const trace::MetricValue& v : range.values) {
    const std::string_view name = trace.str(v.metric);
    const MetricReading reading = readMetricName(name);
    if (!valueFitsUnit(reading, v.value)) continue;  // counted by the stage (checkValues), read as absent
    out.push_back({name, reading, v.value});
  }
  return out;
}

// The counter's unit: "sm" of "sm__cycles_elapsed.sum".
std::string_view unitOf(std::string_view name) { return name.substr(0, name.find("__")); }

// A percentage or ratio of the whole pipe if recorded; else its ops' added up (HMMA, IMMA, DMMA,
// GMMA run on one pipe in turn, so their busy shares add), at most 1.
std::optional<RangeTensorReading> fromShares(const std::vector<ReadValue>& values) {
  RangeTensorReading out;
  double ops_share = 0.0;
  std::string ops_basis;
  for (const ReadValue& v : values) {
    if (v.reading.meaning != MetricMeaning::kTensorPipeActive) continue;
    double share = 0.0;
    if (v.reading.unit == MetricUnit::kPercent) share = v.value / 100.0;
    else if (v.reading.unit == MetricUnit::kRatio) share = v.value;
    else continue;
    if (v.reading.pipe.empty()) {
      out.share = std::clamp(share, 0.0, 1.0);
      out.basis = std::string(v.name);
      out.busy = share > 0.0;
      return out;
    }
    ops_share += share;
    ops_basis += (ops_basis.empty() ? "" : " + ") + std::string(v.name);
  }
  if (ops_basis.empty()) return std::nullopt;
  out.share = std::clamp(ops_share, 0.0, 1.0);
  out.busy = ops_share > 0.0;
  out.basis = ops_basis;
  return out;
}

// Busy cycles over elapsed cycles counted alike (same unit, same rollup).
std::optional<RangeTensorReading> fromCycleCounts(const std::vector<ReadValue>& values) {
  for (const ReadValue& busy : values) {
    if (busy.reading.meaning != MetricMeaning::kTensorPipeActive || busy.reading.unit != MetricUnit::kCount) continue;
    if (!busy.reading.pipe.empty()) continue;  // the whole pipe only: one op's cycles would undercount
    for (const ReadValue& elapsed : values) {
      if (elapsed.reading.meaning != MetricMeaning::kCyclesElapsed || elapsed.reading.rollup != busy.reading.rollup ||
          unitOf(elapsed.name) != unitOf(busy.name) || elapsed.value <= 0.0) {
        continue;
      }
      RangeTensorReading out;
      out.share = std::clamp(busy.value / elapsed.value, 0.0, 1.0);
      out.busy = busy.value > 0.0;
      out.basis = std::string(busy.name) + " / " + std::string(elapsed.name);
      return out;
    }
  }
  return std::nullopt;
}

// Busy cycles or MMA instructions, any pipe: more than none is Tensor Core use.
std::optional<RangeTensorReading> fromAnyCount(const std::vector<ReadValue>& values) {
  std::optional<RangeTensorReading> out;
  for (const ReadValue& v : values) {
    const bool tensor = v.reading.meaning == MetricMeaning::kTensorPipeActive ||
                        v.reading.meaning == MetricMeaning::kTensorInstructions;
    if (!tensor || v.reading.unit != MetricUnit::kCount) continue;
    if (!out) out.emplace();
    out->busy = out->busy.value_or(false) || v.value > 0.0;
    out->basis += (out->basis.empty() ? "" : " + ") + std::string(v.name);
  }
  return out;
}

}  // namespace

RangeTensorReading readTensorPipe(const trace::Trace& trace, const trace::KernelMetrics& range) {
  const std::vector<ReadValue> values = readValues(trace, range);
  if (auto shares = fromShares(values)) return *shares;
  if (auto cycles = fromCycleCounts(values)) return *cycles;
  if (auto counts = fromAnyCount(values)) return *counts;
  return {};
}

std::optional<CudaCoreOps> readCudaCoreOps(const trace::Trace& trace, const trace::KernelMetrics& range) {
  std::optional<CudaCoreOps> ops;
  for (const trace::MetricValue& v : range.values) {
    const MetricReading reading = readMetricName(trace.str(v.metric));
    if (reading.meaning != MetricMeaning::kCudaCoreFpInstructions || reading.rollup != MetricRollup::kSum ||
        !valueFitsUnit(reading, v.value)) {
      continue;
    }
    if (!ops) ops.emplace();
    const double operations = v.value * reading.operations;
    switch (reading.precision) {
      case MathPrecision::kFp16: ops->fp16 += operations; break;
      case MathPrecision::kFp32Simt: ops->fp32 += operations; break;
      case MathPrecision::kFp64: ops->fp64 += operations; break;
      default: break;
    }
  }
  return ops;
}

}  // namespace ampscope::analyzer
