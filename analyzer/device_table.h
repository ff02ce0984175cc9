#pragma once
// The GPUs ampscope knows: dense peak math rates per precision, memory bandwidth and SM count, one
// row per product, from NVIDIA's datasheets and architecture whitepapers (every row's sources:
// docs/devices.md). The performance model reads achieved rates against these peaks, and a rate
// above the peak in the precision a kernel ran is a wrong input, never a result.
//
// Rates are dense (no structured sparsity) at the boost clock. Tensor Core FP16/BF16 rates are
// with FP32 accumulate, the mode mixed-precision training uses: GeForce parts run it at half
// their FP16-accumulate rate.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/tensor_core_rules.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DeviceSpec {
  std::string name;          // the row: "H100 SXM", "RTX 4090", "V100 SXM2"
  std::string architecture;  // "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  double memory_gbs = 0;     // DRAM bandwidth, GB/s (10^9 bytes per second)
  double fp32_tflops = 0;    // FP32 on CUDA cores (an FMA is 2 FLOPs)
  double tf32_tflops = 0;    // Tensor Cores, dense; 0: none
  double fp16_tflops = 0;    // FP16 Tensor Cores with FP32 accumulate, dense
  double bf16_tflops = 0;    // BF16 Tensor Cores with FP32 accumulate, dense; 0: none
  double fp8_tflops = 0;     // 0: none
  double fp4_tflops = 0;     // 0: none
  double int8_tops = 0;      // 0: none
  double fp64_tflops = 0;    // FP64 (Tensor Core FP64 where the part has it)
  std::string sources;       // short citation of the datasheet/whitepaper the numbers come from
};

// Every row, oldest architecture first.
const std::vector<DeviceSpec>& deviceTable();

// How the device was chosen, for the summary's "which row and why".
enum class DeviceBasis : std::uint8_t {
  kNone,               // unknown: the trace names no GPU the table knows and --gpu was not given
  kTraceName,          // the trace's device name matched a row
  kComputeCapability,  // the name did not match (or is absent); the compute capability did
  kUserNamed,          // --gpu NAME
};
const char* deviceBasisName(DeviceBasis basis);  // "none", "trace_name", "compute_capability", "user"

struct DeviceChoice {
  const DeviceSpec* spec = nullptr;  // into deviceTable(); nullptr when unknown
  DeviceBasis basis = DeviceBasis::kNone;
  std::string reason;  // in words: "the trace names \"Tesla V100-DGXS-32GB\"", "--gpu H100-SXM", ...
};

// The row a GPU name denotes, as users type it ("H100-SXM", "h100 sxm", "A100", "rtx4090") or as
// traces record it ("Tesla V100-DGXS-32GB", "NVIDIA A100-SXM4-80GB", "A100-PG509-200",
// "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 2070"); nullptr when no row matches.
const DeviceSpec* findDevice(std::string_view name);

// The row for a compute capability when the name does not say (the data-centre part of that
// capability); nullptr when the table has none.
const DeviceSpec* deviceForComputeCapability(int major, int minor);

// The trace's GPU: its first GPU device's name, else its compute capability; `user_gpu`
// (--gpu NAME, may be empty) only when the trace says neither. Errors: none; an unknown user
// name gives kNone with a reason listing the names the table knows.
DeviceChoice chooseRecordedDevice(const trace::Trace& trace, std::string_view user_gpu);

// The peak rate (TFLOP/s, TOP/s for INT8) of the unit a kernel of this precision runs on:
// kFp32Simt and kFp32 -> FP32 CUDA cores, kTf32 -> TF32 Tensor Cores, ... 0 when the device has
// no such unit or the precision is unknown.
double peakTflops(const DeviceSpec& device, MathPrecision precision);

// The half precision AMP would run matrix math in on this device: BF16 where its Tensor Cores
// have it, else FP16.
MathPrecision ampPrecision(const DeviceSpec& device);

// "V100 SXM2, T4, ..." for help texts and error messages.
std::string deviceNamesList();

}  // namespace ampscope::analyzer
