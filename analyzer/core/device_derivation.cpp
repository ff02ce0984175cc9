#include "analyzer/core/device_derivation.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace ampscope::analyzer {
namespace {

// Clocks and bandwidths a trace may record; outside these ranges the field is taken as garbled
// (a unit mix-up) and not used.
constexpr double kLowestClockGhz = 0.3;
constexpr double kHighestClockGhz = 3.5;
constexpr double kLowestBandwidthGbs = 10;
constexpr double kHighestBandwidthGbs = 20000;
// Device memory: a recorded total outside 0.25 GiB (a Jetson's shared memory is 4 GB, the smallest
// MIG slice 5 GB) to 4 TiB is a unit mix-up and not used.
constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kLowestCapacityGib = 0.25;
constexpr double kHighestCapacityGib = 4096;

double usableClock(double ghz) { return ghz >= kLowestClockGhz && ghz <= kHighestClockGhz ? ghz : 0; }
double usableBandwidth(double gbs) { return gbs >= kLowestBandwidthGbs && gbs <= kHighestBandwidthGbs ? gbs : 0; }
double usableCapacity(double gib) { return gib >= kLowestCapacityGib && gib <= kHighestCapacityGib ? gib : 0; }

// The name a derived spec goes by: the trace's, without the vendor word every name starts with.
std::string derivedName(const GpuFacts& facts) {
  std::string_view name = facts.name;
  if (name.starts_with("NVIDIA ")) name.remove_prefix(7);
  if (!name.empty()) return std::string(name);
  return fmt::format("GPU of compute capability {}.{} with {} SMs", facts.compute_major, facts.compute_minor,
                     facts.sm_count);
}

std::string gbsText(double gbs) { return fmt::format("{:.0f} GB/s", gbs); }

// A row whose published Tensor Core figure follows from the architecture's per-SM rate at the
// clock its FP32 figure implies (within the spread of NVIDIA's per-unit clocks): rows capped by
// export rules (H20) do not, and say nothing about a line's clock.
bool followsArchitecture(const DeviceSpec& row, const ArchitectureRates& rates, bool half_rate) {
  const double clock = impliedBoostGhz(row);
  const double per_sm = half_rate ? rates.fp16 / 2 : rates.fp16;
  if (clock <= 0 || per_sm <= 0) return false;
  const double expected = per_sm * row.sm_count * clock / 1e3;
  return row.fp16_tflops >= 0.8 * expected && row.fp16_tflops <= 1.15 * expected;
}

}  // namespace

const std::vector<ArchitectureRates>& architectureRateTable() {
  // FLOP (OP for INT8) per SM per clock, dense; an FMA is 2 FLOPs. Sources: docs/devices.md,
  // "Per-SM rates".
  static const std::vector<ArchitectureRates> kRates = {
      // Volta: 64 FP32 and 32 FP64 FMA lanes, 8 Tensor Cores of 64 FP16 FMA per clock.
      {"Volta", "GV100", 7, 0, 128, 0, 1024, 0, 0, 0, 0, 64,
       "NVIDIA Tesla V100 GPU Architecture whitepaper"},
      // Turing: 64 FP32 lanes, 2 FP64 units, 8 Tensor Cores (FP16 512 FMA, INT8 twice that).
      {"Turing", "TU10x", 7, 5, 128, 0, 1024, 0, 0, 0, 2048, 4, "NVIDIA Turing GPU Architecture whitepaper"},
      // GA100: 64 FP32 lanes, 4 Tensor Cores of 256 FP16 FMA, FP64 Tensor Core 64 FMA.
      {"Ampere", "GA100", 8, 0, 128, 1024, 2048, 2048, 0, 0, 4096, 128,
       "NVIDIA A100 Tensor Core GPU Architecture whitepaper"},
      // GA10x: 128 FP32 lanes, 2 FP64 units, 4 Tensor Cores of 128 FP16 FMA.
      {"Ampere", "GA10x", 8, 6, 256, 512, 1024, 1024, 0, 0, 2048, 4,
       "NVIDIA Ampere GA102 GPU Architecture whitepaper"},
      // AD10x: GA10x's SM with FP8 at twice FP16.
      {"Ada", "AD10x", 8, 9, 256, 512, 1024, 1024, 2048, 0, 2048, 4, "NVIDIA Ada GPU Architecture whitepaper"},
      // GH100: 128 FP32 lanes, 4 Tensor Cores of 512 FP16 FMA, FP64 Tensor Core 128 FMA.
      {"Hopper", "GH100", 9, 0, 256, 2048, 4096, 4096, 8192, 0, 8192, 256,
       "NVIDIA H100 Tensor Core GPU Architecture whitepaper"},
      // GB100 (B200): Hopper's Tensor Core rates doubled, FP4 at twice FP8; FP64 64 FMA.
      {"Blackwell", "GB100", 10, 0, 256, 4096, 8192, 8192, 16384, 32768, 16384, 128,
       "NVIDIA Blackwell Architecture Technical Brief"},
      // GB20x: the Ada SM with FP4 at twice FP8.
      {"Blackwell", "GB20x", 12, 0, 256, 512, 1024, 1024, 2048, 4096, 2048, 4,
       "NVIDIA RTX Blackwell GPU Architecture whitepaper"},
  };
  return kRates;
}

const ArchitectureRates* architectureRates(int major, int minor) {
  for (const ArchitectureRates& rates : architectureRateTable()) {
    if (rates.compute_major == major && rates.compute_minor == minor) return &rates;
  }
  return nullptr;
}

bool halvesFp32Accumulate(const GpuNameReading& reading) {
  return reading.line == ProductLine::kGeForce || reading.family == "a10g";
}

double impliedBoostGhz(const DeviceSpec& row) {
  const ArchitectureRates* rates = architectureRates(row.compute_major, row.compute_minor);
  if (rates == nullptr || row.sm_count <= 0) return 0;
  return row.fp32_tflops * 1e3 / (row.sm_count * rates->fp32);
}

double typicalBoostGhz(int major, int minor, bool half_rate) {
  const ArchitectureRates* rates = architectureRates(major, minor);
  if (rates == nullptr) return 0;
  double highest = 0;
  for (const DeviceSpec& row : deviceTable()) {
    if (row.compute_major != major || row.compute_minor != minor) continue;
    const std::optional<GpuNameReading> reading = readGpuName(row.name);
    if (!reading || halvesFp32Accumulate(*reading) != half_rate) continue;
    if (!followsArchitecture(row, *rates, half_rate)) continue;
    highest = std::max(highest, impliedBoostGhz(row));
  }
  return highest;
}

double derivedCapacityGib(const GpuFacts& facts, const GpuNameReading* reading) {
  if (const double recorded = usableCapacity(static_cast<double>(facts.total_memory_bytes) / kBytesPerGib);
      recorded > 0) {
    return recorded;
  }
  if (reading != nullptr && reading->mig_memory_gb > 0) return reading->mig_memory_gb;
  return 0;
}

std::optional<DerivedPeaks> deriveFromArchitecture(const GpuFacts& facts, const GpuNameReading* reading) {
  const ArchitectureRates* rates = architectureRates(facts.compute_major, facts.compute_minor);
  if (rates == nullptr || facts.sm_count <= 0) return std::nullopt;
  const bool half = reading != nullptr && halvesFp32Accumulate(*reading);
  const bool tensor_cores = reading == nullptr || !reading->no_tensor_cores;
  double clock = usableClock(facts.clock_ghz);
  std::string clock_words = "the trace's clock";
  if (clock == 0) {
    clock = typicalBoostGhz(facts.compute_major, facts.compute_minor, half);
    // A line the table has no row of (a Volta GeForce) takes the other line's clock.
    if (clock == 0) clock = typicalBoostGhz(facts.compute_major, facts.compute_minor, !half);
    if (clock == 0) return std::nullopt;
    clock_words = "the highest the table's rows of that line imply; the trace records no clock";
  }
  std::string line;
  if (reading == nullptr || reading->line == ProductLine::kUnknown) {
    line = "per-SM rates (product line unknown: the full FP32-accumulate rate, an upper bound for a GeForce card)";
  } else if (half && reading->line != ProductLine::kGeForce) {
    line = fmt::format("{} per-SM rates at the GeForce FP32-accumulate rate", productLineName(reading->line));
  } else {
    line = fmt::format("{} per-SM rates", productLineName(reading->line));
  }
  if (!tensor_cores) line += ", without Tensor Cores (GTX)";

  DerivedPeaks out;
  DeviceSpec& d = out.spec;
  d.name = derivedName(facts);
  d.architecture = rates->architecture;
  d.compute_major = facts.compute_major;
  d.compute_minor = facts.compute_minor;
  d.sm_count = facts.sm_count;
  const double scale = facts.sm_count * clock / 1e3;  // FLOP per SM per clock -> TFLOP/s
  const double accumulate = half ? 0.5 : 1.0;
  const double tensor = tensor_cores ? 1.0 : 0.0;
  d.fp32_tflops = rates->fp32 * scale;
  d.fp64_tflops = rates->fp64 * scale;
  d.tf32_tflops = rates->tf32 * scale * accumulate * tensor;
  d.fp16_tflops = rates->fp16 * scale * accumulate * tensor;
  d.bf16_tflops = rates->bf16 * scale * accumulate * tensor;
  d.fp8_tflops = rates->fp8 * scale * accumulate * tensor;
  d.fp4_tflops = rates->fp4 * scale * tensor;
  d.int8_tops = rates->int8 * scale * tensor;
  d.memory_gbs = usableBandwidth(facts.memory_gbs);
  d.capacity_gib = derivedCapacityGib(facts, reading);
  const std::string memory =
      d.memory_gbs > 0 ? fmt::format("memory {} (the trace's)", gbsText(d.memory_gbs))
                       : std::string("memory bandwidth unknown (not recorded)");
  out.how = fmt::format("{} ({}) {} × {} SMs × {:.2f} GHz boost ({}); {}", rates->architecture, rates->chip, line,
                        facts.sm_count, clock, clock_words, memory);
  d.sources = fmt::format("derived: {} per-SM rates ({}); docs/devices.md", rates->chip, rates->source);
  return out;
}

std::optional<DerivedPeaks> deriveFromRow(const DeviceSpec& row, const GpuFacts& facts, const GpuNameReading& reading) {
  const double row_clock = impliedBoostGhz(row);
  if (facts.sm_count <= 0 || row_clock <= 0) return std::nullopt;
  const double trace_clock = usableClock(facts.clock_ghz);
  double clock = trace_clock > 0 ? trace_clock : row_clock;
  std::string clock_words = trace_clock > 0 ? "the trace's clock" : "the row's";
  // A SUPER refresh the table has no row for clocks higher than the card it refreshes (RTX 2080
  // SUPER 1815 MHz, RTX 2080 1710): the higher of the row's clock and its line's.
  const std::optional<GpuNameReading> row_reading = readGpuName(row.name);
  if (trace_clock == 0 && reading.super && row_reading && !row_reading->super) {
    const double line_clock = typicalBoostGhz(row.compute_major, row.compute_minor, halvesFp32Accumulate(*row_reading));
    if (line_clock > clock) {
      clock = line_clock;
      clock_words = "its line's highest: a SUPER card clocks above the card it refreshes";
    }
  }
  const double scale = static_cast<double>(facts.sm_count) / row.sm_count * (clock / row_clock);

  DerivedPeaks out;
  DeviceSpec& d = out.spec;
  d.name = derivedName(facts);
  d.architecture = row.architecture;
  d.compute_major = facts.compute_major > 0 ? facts.compute_major : row.compute_major;
  d.compute_minor = facts.compute_major > 0 ? facts.compute_minor : row.compute_minor;
  d.sm_count = facts.sm_count;
  d.fp32_tflops = row.fp32_tflops * scale;
  d.tf32_tflops = row.tf32_tflops * scale;
  d.fp16_tflops = row.fp16_tflops * scale;
  d.bf16_tflops = row.bf16_tflops * scale;
  d.fp8_tflops = row.fp8_tflops * scale;
  d.fp4_tflops = row.fp4_tflops * scale;
  d.int8_tops = row.int8_tops * scale;
  d.fp64_tflops = row.fp64_tflops * scale;
  d.capacity_gib = derivedCapacityGib(facts, &reading);
  std::string memory;
  if (const double recorded = usableBandwidth(facts.memory_gbs); recorded > 0) {
    d.memory_gbs = recorded;
    memory = fmt::format("memory {} (the trace's)", gbsText(recorded));
  } else if (reading.mig_memory_gb > 0 && reading.memory_gb > reading.mig_memory_gb) {
    // A MIG slice owns its share of the memory controllers: its bandwidth is the board's in the
    // proportion of its memory.
    d.memory_gbs = row.memory_gbs * reading.mig_memory_gb / reading.memory_gb;
    memory = fmt::format("memory {} ({}/{} of the row's {})", gbsText(d.memory_gbs), reading.mig_memory_gb,
                         reading.memory_gb, gbsText(row.memory_gbs));
  } else if (reading.mig_memory_gb > 0) {
    memory = "memory bandwidth unknown (a MIG slice of a board whose memory size the name does not state)";
  } else {
    d.memory_gbs = row.memory_gbs;
    memory = fmt::format("memory {} (the row's, assumed)", gbsText(row.memory_gbs));
  }
  out.how = fmt::format("the {} row's per-SM rates × {} SMs × {:.2f} GHz boost ({}); {}", row.name, facts.sm_count,
                        clock, clock_words, memory);
  d.sources = fmt::format("derived from the {} row ({})", row.name, row.sources);
  return out;
}

}  // namespace ampscope::analyzer
