#include "analyzer/core/device_table.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/device_rows.h"

namespace ampscope::analyzer {
namespace {

// deviceRows() and deviceTable() hold the same rows in the same order.
const DeviceSpec& specOf(const DeviceRow& row) {
  return deviceTable()[static_cast<std::size_t>(&row - &deviceRows().front())];
}

const DeviceRow* rowOf(const DeviceSpec* spec) {
  const std::vector<DeviceSpec>& table = deviceTable();
  // std::less orders any two pointers (a derived spec lives outside the table), where < between
  // unrelated objects is unspecified.
  const std::less<const DeviceSpec*> before;
  if (spec == nullptr || table.empty() || before(spec, &table.front()) || before(&table.back(), spec)) return nullptr;
  return &deviceRows()[static_cast<std::size_t>(spec - &table.front())];
}

bool fitsBoard(const DeviceRow& row, const GpuNameReading& reading) {
  if (reading.form != BoardForm::kAny && row.form != BoardForm::kAny && row.form != reading.form) return false;
  return reading.memory_gb == 0 || row.memory_gb == 0 || row.memory_gb == reading.memory_gb;
}

const DeviceSpec* specNamed(std::string_view name) {
  for (const DeviceSpec& spec : deviceTable()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

const std::vector<DeviceSpec>& deviceTable() {
  static const std::vector<DeviceSpec> kTable = [] {
    std::vector<DeviceSpec> table;
    for (const DeviceRow& row : deviceRows()) table.push_back(row.spec);
    return table;
  }();
  return kTable;
}

const char* deviceBasisName(DeviceBasis basis) {
  switch (basis) {
    case DeviceBasis::kNone: return "none";
    case DeviceBasis::kTraceName: return "trace_name";
    case DeviceBasis::kDerived: return "derived";
    case DeviceBasis::kComputeCapability: return "compute_capability";
    case DeviceBasis::kUserNamed: return "user";
    case DeviceBasis::kKernelNames: return "kernel_names";
    case DeviceBasis::kAmdGpu: return "amd_gpu";
  }
  return "none";
}

std::shared_ptr<const DeviceSpec> rowSpec(const DeviceSpec* row) {
  // The aliasing constructor with no owner: a pointer to a row that lives as long as the program.
  return std::shared_ptr<const DeviceSpec>(std::shared_ptr<const DeviceSpec>(), row);
}

// The first row of the name's family that fits what the name says: a bare family name picks the
// first row (the SXM / data-centre board, the larger memory), which the table lists first. Only
// a name read whole matches.
const DeviceSpec* findDevice(const GpuNameReading& reading) {
  if (!reading.exact) return nullptr;
  const DeviceRow* first = nullptr;
  for (const DeviceRow& row : deviceRows()) {
    if (reading.family != row.family || reading.ti != row.ti || reading.super != row.super) continue;
    if (!fitsBoard(row, reading)) continue;
    // A size that only the device memory tells ("GH200 144GB") picks its row where it is stated.
    if (reading.memory_gb != 0 && row.deviceMemoryGb() == reading.memory_gb) return &specOf(row);
    if (first == nullptr) first = &row;
  }
  return first == nullptr ? nullptr : &specOf(*first);
}

const DeviceSpec* findDevice(std::string_view name) {
  const std::optional<GpuNameReading> reading = readGpuName(name);
  return reading ? findDevice(*reading) : nullptr;
}

const DeviceSpec* familyRow(const GpuNameReading& reading) {
  for (const std::string& family : {reading.family, familyWithoutSuffix(reading.family)}) {
    const DeviceRow* first = nullptr;
    for (const DeviceRow& row : deviceRows()) {
      if (family != row.family) continue;
      if (fitsBoard(row, reading) && row.ti == reading.ti && row.super == reading.super) return &specOf(row);
      if (first == nullptr && fitsBoard(row, reading)) first = &row;
    }
    if (first != nullptr) return &specOf(*first);
  }
  return nullptr;
}

int rowMemoryGb(const DeviceSpec& row) {
  const DeviceRow* r = rowOf(&row);
  return r == nullptr ? 0 : r->deviceMemoryGb();
}

const DeviceSpec* rowForDeviceMemory(const DeviceSpec* spec, std::uint64_t total_memory_bytes) {
  const DeviceRow* row = rowOf(spec);
  if (row == nullptr || row->deviceMemoryGb() == 0 || total_memory_bytes == 0) return spec;
  const double memory_gib = static_cast<double>(total_memory_bytes) / (1024.0 * 1024 * 1024);
  const DeviceRow* best = row;
  for (const DeviceRow& other : deviceRows()) {
    if (std::string_view(other.family) != row->family || other.form != row->form || other.ti != row->ti ||
        other.super != row->super || other.deviceMemoryGb() == 0) {
      continue;
    }
    if (std::abs(other.deviceMemoryGb() - memory_gib) < std::abs(best->deviceMemoryGb() - memory_gib)) {
      best = &other;
    }
  }
  return &specOf(*best);
}

const DeviceSpec* deviceForComputeCapability(int major, int minor) {
  // The data-centre part of each capability (docs/devices.md says why each): 7.2 is Jetson
  // AGX Xavier, far below a V100, which stays an upper bound there; 8.7 (Orin) and 10.3
  // (B300/GB300) have no row; 12.0's is the RTX PRO 6000 Blackwell (Server Edition).
  switch (major * 10 + minor) {
    case 70:
    case 72: return specNamed("V100 SXM2");
    case 75: return specNamed("T4");
    case 80: return specNamed("A100 SXM");
    case 86: return specNamed("A10");
    case 89: return specNamed("L4");
    case 90: return specNamed("H100 SXM");
    case 100: return specNamed("B200");
    case 120: return specNamed("RTX PRO 6000 Blackwell");
    default: return nullptr;
  }
}

MathPrecision ampPrecision(const DeviceSpec& device) {
  return device.bf16_tflops > 0 ? MathPrecision::kBf16 : MathPrecision::kFp16;
}

double peakTflops(const DeviceSpec& device, MathPrecision precision) {
  switch (precision) {
    case MathPrecision::kFp32Simt:
    case MathPrecision::kFp32: return device.fp32_tflops;
    case MathPrecision::kTf32: return device.tf32_tflops;
    case MathPrecision::kFp16: return device.fp16_tflops;
    case MathPrecision::kBf16: return device.bf16_tflops;
    case MathPrecision::kFp8: return device.fp8_tflops;
    case MathPrecision::kFp4: return device.fp4_tflops;
    case MathPrecision::kInt8: return device.int8_tops;
    case MathPrecision::kFp64: return device.fp64_tflops;
    case MathPrecision::kUnknown: return 0;
  }
  return 0;
}

std::string deviceNamesList() {
  std::string list;
  for (const DeviceSpec& spec : deviceTable()) {
    if (!list.empty()) list += ", ";
    list += spec.name;
  }
  return list;
}

}  // namespace ampscope::analyzer
