#include "analyzer/counters/metric_reading.h"

#include <cmath>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace ampscope::analyzer {
namespace {

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The units of the SM's hierarchy whose counters describe its pipes and cycles: the SM and its
// sub-partitions. Device-level units (gpc, gpu, dram, ...) count other things.
bool isSmUnit(std::string_view unit) { return unit == "sm" || unit == "smsp"; }

MetricRollup readRollup(std::string_view rollup) {
  if (rollup == "sum") return MetricRollup::kSum;
  if (rollup == "avg") return MetricRollup::kAvg;
  if (rollup == "min") return MetricRollup::kMin;
  if (rollup == "max") return MetricRollup::kMax;
  return MetricRollup::kNone;
}

// The submetric says what the rolled-up value is: none, a raw count; pct_of_peak_sustained_*, a
// percentage of the peak over elapsed (or active) cycles; ratio, a 0..1 ratio; anything else
// (per_second, peak_sustained, per_cycle_active, ...) a rate or a bound the analysis does not read.
MetricUnit readSubmetric(std::string_view submetric) {
  if (submetric.empty()) return MetricUnit::kCount;
  if (startsWith(submetric, "pct_of_peak_sustained")) return MetricUnit::kPercent;
  if (submetric == "ratio") return MetricUnit::kRatio;
  return MetricUnit::kUnknown;
}

// sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}_pred_on: per-thread FP instructions on CUDA cores.
bool readFpInstructions(std::string_view counter, MetricReading& reading) {
  constexpr std::string_view kPrefix = "sass_thread_inst_executed_op_";
  if (!startsWith(counter, kPrefix)) return false;
  std::string_view op = counter.substr(kPrefix.size());
  if (endsWith(op, "_pred_on")) op.remove_suffix(std::string_view("_pred_on").size());
  if (op.size() != 4) return false;
  switch (op[0]) {
    case 'h': reading.precision = MathPrecision::kFp16; break;
    case 'f': reading.precision = MathPrecision::kFp32Simt; break;
    case 'd': reading.precision = MathPrecision::kFp64; break;
    default: return false;
  }
  const std::string_view kind = op.substr(1);
  if (kind == "fma") reading.operations = 2;
  else if (kind == "add" || kind == "mul") reading.operations = 1;
  else return false;
  reading.meaning = MetricMeaning::kCudaCoreFpInstructions;
  return true;
}

// The pipe a tensor counter names after "pipe_tensor": "_op_hmma" -> "hmma", "" -> the whole pipe.
// The names interned here are the tensor ops the metric references list (HMMA, IMMA, DMMA, and
// Hopper's warpgroup GMMA); another name is kept as the counter spells it.
std::string_view tensorPipeOf(std::string_view rest) {
  static constexpr std::array<std::string_view, 4> kKnownPipes = {"hmma", "imma", "dmma", "gmma"};
  // "_op_hmma" (Volta to Hopper), "_subpipe_hmma" (Blackwell's CUPTI names).
  if (startsWith(rest, "_op_")) rest.remove_prefix(4);
  else if (startsWith(rest, "_subpipe_")) rest.remove_prefix(9);
  else if (startsWith(rest, "_")) rest.remove_prefix(1);
  for (std::string_view pipe : kKnownPipes) {
    if (startsWith(rest, pipe)) return pipe;
  }
  return "";
}

MetricReading readPerfworksName(std::string_view name) {
  MetricReading reading;
  const std::size_t unit_end = name.find("__");
  if (unit_end == std::string_view::npos) return reading;
  const std::string_view unit = name.substr(0, unit_end);
  const std::string_view rest = name.substr(unit_end + 2);
  const std::size_t dot = rest.find('.');
  const std::string_view counter = rest.substr(0, dot);
  std::string_view rollup;
  std::string_view submetric;
  if (dot != std::string_view::npos) {
    const std::string_view after = rest.substr(dot + 1);
    const std::size_t second = after.find('.');
    rollup = after.substr(0, second);
    if (second != std::string_view::npos) submetric = after.substr(second + 1);
  }
  reading.rollup = readRollup(rollup);
  reading.unit = readSubmetric(submetric);
  if (!isSmUnit(unit)) return {};
  if (readFpInstructions(counter, reading)) {
    if (reading.unit != MetricUnit::kCount) return {};  // a rate of instructions is not a count
    return reading;
  }
  // pipe_tensor_cycles_active, pipe_tensor_op_hmma_cycles_active, pipe_tensor_op_gmma_cycles_active:
  // cycles the tensor pipe (or one of its ops) was busy.
  constexpr std::string_view kTensorPipe = "pipe_tensor";
  constexpr std::string_view kCyclesActive = "_cycles_active";
  if (startsWith(counter, kTensorPipe) && endsWith(counter, kCyclesActive)) {
    reading.meaning = MetricMeaning::kTensorPipeActive;
    reading.pipe = tensorPipeOf(counter.substr(kTensorPipe.size(), counter.size() - kTensorPipe.size() - kCyclesActive.size()));
  } else if (startsWith(counter, "inst_executed_pipe_tensor")) {
    // inst_executed_pipe_tensor, inst_executed_pipe_tensor_op_hmma, ..._op_gmma: MMA instructions.
    reading.meaning = MetricMeaning::kTensorInstructions;
    reading.pipe = tensorPipeOf(counter.substr(std::string_view("inst_executed_pipe_tensor").size()));
    if (reading.unit != MetricUnit::kCount) return {};
  } else if (counter == "cycles_active") {
    reading.meaning = MetricMeaning::kSmActive;
  } else if (counter == "cycles_elapsed") {
    reading.meaning = MetricMeaning::kCyclesElapsed;
    if (reading.unit != MetricUnit::kCount) return {};  // cycles_elapsed.avg.per_second is the clock
  } else {
    return {};
  }
  if (reading.unit == MetricUnit::kUnknown) return {};
  return reading;
}

// A tool's label rather than a Perfworks name: Nsight Systems' GPU metrics ("Tensor Active",
// "Tensor Active [Throughput %]", "SM Active", "SMs Active [Throughput %]"), in percent.
MetricReading readLabel(std::string_view name) {
  const std::string text = lowered(name);
  MetricReading reading;
  const bool percent = text.find('%') != std::string::npos || text.find('[') == std::string::npos;
  if (!percent) return reading;
  const bool active = text.find("active") != std::string::npos;
  if (!active) return reading;
  if (text.find("tensor") != std::string::npos) {
    reading.meaning = MetricMeaning::kTensorPipeActive;
  } else if (startsWith(text, "sm active") || startsWith(text, "sms active")) {
    reading.meaning = MetricMeaning::kSmActive;
  } else {
    return reading;
  }
  reading.unit = MetricUnit::kPercent;
  reading.rollup = MetricRollup::kAvg;
  return reading;
}

}  // namespace

MetricReading readMetricName(std::string_view name) {
  if (name.find("__") != std::string_view::npos) return readPerfworksName(name);
  return readLabel(name);
}

bool valueFitsUnit(const MetricReading& reading, double value) {
  if (!std::isfinite(value)) return false;
  switch (reading.unit) {
    case MetricUnit::kPercent: return value >= 0.0 && value <= 100.5;
    case MetricUnit::kRatio: return value >= 0.0 && value <= 1.005;
    case MetricUnit::kCount: return value >= 0.0;
    case MetricUnit::kUnknown: return true;
  }
  return true;
}

const char* metricMeaningName(MetricMeaning meaning) {
  switch (meaning) {
    case MetricMeaning::kOther: return "other";
    case MetricMeaning::kTensorPipeActive: return "tensor_pipe_active";
    case MetricMeaning::kTensorInstructions: return "tensor_instructions";
    case MetricMeaning::kSmActive: return "sm_active";
    case MetricMeaning::kCyclesElapsed: return "cycles_elapsed";
    case MetricMeaning::kCudaCoreFpInstructions: return "cuda_core_fp_instructions";
  }
  return "other";
}

}  // namespace ampscope::analyzer
