#pragma once
// The GPUs ampscope knows: dense peak math rates per precision, memory bandwidth and SM count, one
// row per product, from NVIDIA's datasheets and architecture whitepapers. The rows are data
// (analyzer/rules/devices.tsv, each with its source; read by device_rows.h); this header is what
// the analysis asks of them. Every row's sources and the figures not confirmed: docs/devices.md. The performance model reads achieved rates against these peaks, and a rate
// above the peak in the precision a kernel ran is a wrong input, never a result. A GPU the table
// has no row for gets peaks derived from its SM count (device_derivation.h), never a sibling's.
//
// Rates are dense (no structured sparsity) at the boost clock. Tensor Core FP16/BF16 rates are
// with FP32 accumulate, the mode mixed-precision training uses: GeForce parts run it at half
// their FP16-accumulate rate.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/device_names.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DeviceSpec {
  std::string name;          // the row: "H100 SXM", "RTX 4090", "V100 SXM2"; a derived spec: the GPU's
  std::string architecture;  // "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  double memory_gbs = 0;     // DRAM bandwidth, GB/s (10^9 bytes per second)
  // Device memory, GiB (2^30 bytes). A row's is nominal: the datasheet's "GB", which NVIDIA states
  // in GiB, above what the device reports as usable (devices.tsv's capacity_gb; docs/devices.md,
  // "Memory capacity"). A derived spec's is the trace's recorded total, or a MIG slice's size as its
  // name states it. 0: unknown (a row of several sizes, a GPU without a row or a recorded total).
  double capacity_gib = 0;
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
  kNone,               // unknown: nothing in the trace tells the GPU and --gpu was not given
  kTraceName,          // the trace's device name matched a row
  kDerived,            // the trace's GPU has no row: peaks derived from its SM count (device_derivation.h)
  kComputeCapability,  // no row and nothing to derive from (no SM count): the capability's row
  kUserNamed,          // --gpu NAME
  kKernelNames,        // the trace records no GPU: the newest architecture its kernel names prove,
                       // a lower bound (kernel_architecture.h)
  kAmdGpu,             // recorded on an AMD GPU (gpu_vendor.h): no row, no Tensor Core rules; unknown
};
// "none", "trace_name", "derived", "compute_capability", "user", "kernel_names", "amd_gpu"
const char* deviceBasisName(DeviceBasis basis);

struct DeviceChoice {
  // The row, or the peaks derived for this GPU (which no row holds); null when unknown. Shared,
  // so that copies of a choice (the summary's, the what-if's) keep a derived spec alive; compare
  // two choices' devices by name, never by pointer.
  std::shared_ptr<const DeviceSpec> spec;
  DeviceBasis basis = DeviceBasis::kNone;
  std::string reason;  // in words: "the trace names \"Tesla V100-DGXS-32GB\"", "--gpu H100-SXM", ...

  // The GPU is at least this one, perhaps newer (a guess from kernel names): peaks are a lower
  // bound, so a rate above them is no proof of a wrong input.
  bool lowerBound() const { return basis == DeviceBasis::kKernelNames; }
};

// A row as a choice's spec (rows live as long as the program: nothing is copied or owned).
std::shared_ptr<const DeviceSpec> rowSpec(const DeviceSpec* row);

// The row a GPU name denotes, as users type it ("H100-SXM", "h100 sxm", "A100", "rtx4090") or as
// traces record it ("Tesla V100-DGXS-32GB", "NVIDIA A100-SXM4-80GB", "A100-PG509-200",
// "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 2070 SUPER", "NVIDIA GH200 480GB"); nullptr when
// no row matches, and for a variant the table lacks ("RTX 4090 D", a MIG slice): never a sibling.
const DeviceSpec* findDevice(std::string_view name);
const DeviceSpec* findDevice(const GpuNameReading& reading);

// The row of a name's family that its peaks are derived from where the name matches no row: the
// family's row that fits the board and memory the name states, else its first ("RTX 4090 D" and
// "RTX 4090 Laptop GPU" -> RTX 4090, "RTX 3080 Ti" -> RTX 3080, a MIG slice -> its board's row).
// nullptr when the table has no row of the family.
const DeviceSpec* familyRow(const GpuNameReading& reading);

// Where rows of one board differ only by memory size (A100 40GB/80GB: 1555 against 2039 GB/s),
// the row of the nearest size to the device's memory; `row` itself otherwise.
const DeviceSpec* rowForDeviceMemory(const DeviceSpec* row, std::uint64_t total_memory_bytes);
// The memory size that tells a row from its board's other rows; 0 when it has none.
int rowMemoryGb(const DeviceSpec& row);

// The row for a compute capability when nothing else says: the data-centre part of that
// capability; nullptr when the table has none.
const DeviceSpec* deviceForComputeCapability(int major, int minor);

// The trace's GPU (device_choice.cpp; order and reasons: docs/devices.md, "Choosing the trace's
// device"): its first GPU device's name where it matches a row; else peaks derived from the
// device's SM count; else its compute capability's row; else `user_gpu` (--gpu NAME, may be
// empty); else a guess from the kernel names. Errors: none; an unknown user name gives kNone
// with a reason listing the names the table knows.
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
