#pragma once
// Peaks for a GPU the device table has no row for, derived from physics: the per-SM throughput
// per clock NVIDIA's architecture whitepapers give for each unit and precision, times the SM
// count the trace records, times a clock (the trace's where it records one). Two ways:
//  - from a row of the GPU's family ("RTX 4090 D" from the RTX 4090 row, a MIG slice from its
//    board's row): that row's own per-SM rates, which carry the product line's rules (GeForce
//    FP32-accumulate rate, export caps) and its clock;
//  - from the architecture alone (a name the table has no family for, or only a compute
//    capability): the whitepaper's per-SM rates and the product line's Tensor Core rule.
// Every derived spec says which in words. Rates, rules and sources: docs/devices.md, "Derived peaks".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/device_names.h"
#include "analyzer/core/device_table.h"

namespace ampscope::analyzer {

// Dense throughput per SM per clock, in FLOP (OP for INT8), of the architecture's data-centre
// and professional parts (full-rate FP32 accumulate); 0 where the SM has no such unit.
struct ArchitectureRates {
  const char* architecture;  // "Turing": DeviceSpec::architecture
  const char* chip;          // "TU10x", "GA100", "GA10x": the whitepaper's chips
  int compute_major;
  int compute_minor;
  double fp32;  // CUDA cores: 2 x FP32 FMA lanes
  double tf32;  // Tensor Cores, dense
  double fp16;
  double bf16;
  double fp8;
  double fp4;
  double int8;
  double fp64;  // FP64 Tensor Cores where the SM has them, else the FP64 units
  const char* source;  // the whitepaper
};

// One entry per compute capability the derivation knows (7.0, 7.5, 8.0, 8.6, 8.9, 9.0, 10.0, 12.0),
// oldest first.
const std::vector<ArchitectureRates>& architectureRateTable();
// nullptr for a capability the table lacks (7.2 Xavier, 8.7 Orin, 10.3 Blackwell Ultra, ...).
const ArchitectureRates* architectureRates(int major, int minor);

// Whether the line runs FP16/BF16/TF32/FP8 with FP32 accumulate at half the full rate: GeForce
// cards, and AWS's A10G (a GA102 part measured at GeForce rates). INT8 and FP4 keep the full rate.
bool halvesFp32Accumulate(const GpuNameReading& reading);

// What the trace says about the GPU, for a derivation.
struct GpuFacts {
  std::string name;        // as recorded ("" when the trace names none)
  int compute_major = 0;   // 0 when unknown
  int compute_minor = 0;
  int sm_count = 0;        // required
  double clock_ghz = 0;    // the trace's peak SM clock; 0 when not recorded
  double memory_gbs = 0;   // the trace's DRAM bandwidth; 0 when not recorded
  std::uint64_t total_memory_bytes = 0;  // the device's memory as it reports it (usable); 0 when not recorded
};

// The device memory a derived spec holds (DeviceSpec::capacity_gib): the trace's total where it
// records one, in GiB (what the device reports as usable, below a datasheet's nominal size); else
// a MIG slice's as its name states it ("MIG 1g.10gb": 10); else 0, unknown: a GPU the table has
// no row for is not given its family's size (an RTX 3080 Ti is no 10 GB RTX 3080). `reading` may
// be null.
double derivedCapacityGib(const GpuFacts& facts, const GpuNameReading* reading);

struct DerivedPeaks {
  DeviceSpec spec;  // name: the trace's name without "NVIDIA "; sources: how it was derived
  std::string how;  // "Turing GeForce per-SM rates × 40 SMs × 1.77 GHz boost (...); memory ..."
};

// The boost clock a line's rows imply where the trace records none: the highest FP32 rate per SM
// and clock among the table's rows of the capability and Tensor Core rule (an upper bound, so that
// a derived peak does not understate the GPU). 0 when the table has no such row.
double typicalBoostGhz(int major, int minor, bool half_rate);

// From the architecture: nullopt when the capability is not in architectureRateTable() or the
// SM count is unknown. `reading` may be null (no name): the data-centre rule, said in `how`.
std::optional<DerivedPeaks> deriveFromArchitecture(const GpuFacts& facts, const GpuNameReading* reading);

// From a row of the GPU's family: nullopt when the SM count is unknown.
std::optional<DerivedPeaks> deriveFromRow(const DeviceSpec& row, const GpuFacts& facts, const GpuNameReading& reading);

// The clock a row's FP32 figure implies (GHz); 0 when its capability is not in the rate table.
double impliedBoostGhz(const DeviceSpec& row);

}  // namespace ampscope::analyzer
