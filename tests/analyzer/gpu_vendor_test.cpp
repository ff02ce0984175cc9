#include "analyzer/core/gpu_vendor.h"

#include <gtest/gtest.h>

#include "analyzer/core/device_table.h"
#include "analyzer/core/rule_ids.h"
#include "gpu_trace_builder.h"
#include "tests/analyzer/test_gpu.h"

namespace ampscope::analyzer {
namespace {

// deviceProperties as ROCm's PyTorch writes them for an MI210: HIP reports gfx90a as compute
// capability 9.0, and its 104 compute units as SMs (TraceLens' mi210 test trace).
trace::Trace mi210Trace() {
  trace::Trace t;
  test::addGpu(t, {.name = "AMD Instinct MI210", .compute_major = 9, .sm_count = 104, .memory_bytes = 64ull << 30});
  return t;
}

TEST(GpuVendorTest, AnAmdDeviceNameOrHipCallsMarkAnAmdGpu) {
  const std::optional<AmdGpu> named = amdGpuOf(mi210Trace());
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->name, "AMD Instinct MI210");

  trace::Trace unnamed;  // an MI300X trace whose device name is empty: its hip* calls tell
  unnamed.devices.emplace_back();
  trace::LaunchCall call;
  call.name = unnamed.strings.intern("hipExtModuleLaunchKernel");
  unnamed.launches.push_back(call);
  const std::optional<AmdGpu> by_calls = amdGpuOf(unnamed);
  ASSERT_TRUE(by_calls.has_value());
  EXPECT_EQ(by_calls->evidence, "HIP API calls (hipExtModuleLaunchKernel)");

  trace::Trace radeon;
  radeon.devices.emplace_back().name = radeon.strings.intern("AMD Radeon Graphics");
  EXPECT_TRUE(amdGpuOf(radeon).has_value());
}

TEST(GpuVendorTest, AnNvidiaTraceIsNoAmdGpu) {
  trace::Trace t;
  t.devices.emplace_back().name = t.strings.intern("NVIDIA H100 80GB HBM3");
  trace::LaunchCall call;
  call.name = t.strings.intern("cudaLaunchKernel");
  t.launches.push_back(call);
  call.name = t.strings.intern("hipster");  // not a HIP call: lower case after "hip"
  t.launches.push_back(call);
  EXPECT_FALSE(amdGpuOf(t).has_value());
}

// Read as an NVIDIA GPU, an MI210 (9.0, 104 units) would pass for a Hopper: its peaks and Tensor
// Core verdicts would be an H100's.
TEST(GpuVendorTest, AnAmdGpuGetsNoDeviceRowAndSaysWhy) {
  const DeviceChoice choice = chooseRecordedDevice(mi210Trace(), "H100-SXM");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kAmdGpu);
  EXPECT_STREQ(deviceBasisName(choice.basis), "amd_gpu");
  EXPECT_NE(choice.reason.find("AMD Instinct MI210"), std::string::npos) << choice.reason;
  EXPECT_NE(choice.reason.find("no Tensor Core rules"), std::string::npos) << choice.reason;
}

TEST(GpuVendorTest, EveryKernelOfAnAmdGpuHasAnUnknownVerdictCountedAsUnknownTime) {
  GpuTraceBuilder run("AMD Instinct MI300X");
  // Names an NVIDIA rule would place: on an AMD GPU none of them says anything.
  run.op("aten::mm", "[[1024,1024],[1024,1024]]", R"(["c10::BFloat16","c10::BFloat16"])",
         "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 100 * kUs);
  run.op("aten::mm", "[[1024,1024],[1024,1024]]", R"(["float","float"])", "ampere_sgemm_128x64_tn", 300 * kUs);
  const TraceSummary summary = run.summary();
  EXPECT_EQ(summary.device.basis, DeviceBasis::kAmdGpu);
  EXPECT_EQ(summary.tensor_cores.time_ns, 0);
  EXPECT_EQ(summary.tensor_cores.unknown_time_ns, 400 * kUs);
  ASSERT_FALSE(summary.kernels.empty());
  for (const auto& row : summary.kernels) EXPECT_EQ(row.verdict.rule_id, rule_ids::kAmdGpuKernel) << row.name;
}

// HTA's test data holds a Quadro GP100 (Pascal, 6.0): no row, and the reason says why AMP's matrix
// math would find no Tensor Cores there.
TEST(GpuVendorTest, AGpuBeforeVoltaSaysItHasNoTensorCores) {
  trace::Trace t;
  test::addGpu(t, {.name = "Quadro GP100", .compute_major = 6, .sm_count = 56, .memory_bytes = 16ull << 30});
  const DeviceChoice choice = chooseRecordedDevice(t, "");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_NE(choice.reason.find("before Volta (compute capability 7.0) has no Tensor Cores"), std::string::npos)
      << choice.reason;
}

}  // namespace
}  // namespace ampscope::analyzer
