#include "analyzer/verdicts/kernel_verdicts.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

trace::Device device(std::uint32_t id, trace::DeviceKind kind) {
  trace::Device d;
  d.id = id;
  d.kind = kind;
  return d;
}

trace::Kernel kernel(trace::Trace& trace, const char* name, std::uint32_t device_id) {
  trace::Kernel k;
  k.name = trace.strings.intern(name);
  k.device = device_id;
  return k;
}

TEST(KernelVerdictsTest, HostOpsGetAHostVerdictWithTheirDtypeNotANegativeOne) {
  const TensorCoreVerdict gemm = hostVerdict("cpu gemm float16 64x100x784 NT");
  EXPECT_EQ(gemm.tensor_core, TensorCoreUse::kHost);
  EXPECT_FALSE(gemm.tensor_core);  // in a condition, host is no Tensor Core time
  EXPECT_EQ(gemm.precision, MathPrecision::kFp16);
  EXPECT_TRUE(gemm.rule_id.empty());
  EXPECT_EQ(hostVerdict("cpu conv2d forward bfloat16").precision, MathPrecision::kBf16);
  EXPECT_EQ(hostVerdict("cpu gemm float32 64x100x784 NT").precision, MathPrecision::kFp32);
  EXPECT_EQ(hostVerdict("cpu relu forward").precision, MathPrecision::kUnknown);
  EXPECT_STREQ(precisionName(MathPrecision::kFp32), "FP32");
}

TEST(KernelVerdictsTest, TheDeviceDecidesNotTheName) {
  trace::Trace trace;
  trace.devices = {device(0, trace::DeviceKind::kGpu), device(1, trace::DeviceKind::kCpu)};
  KernelVerdicts verdicts(trace);
  // The same name on a GPU goes through the rules; on the CPU device it is a host op.
  const TensorCoreVerdict& on_gpu = verdicts.of(kernel(trace, "volta_h884gemm_64x64_nn", 0));
  EXPECT_EQ(on_gpu.tensor_core, TensorCoreUse::kYes);
  const TensorCoreVerdict& on_cpu = verdicts.of(kernel(trace, "volta_h884gemm_64x64_nn", 1));
  EXPECT_EQ(on_cpu.tensor_core, TensorCoreUse::kHost);
  EXPECT_FALSE(on_cpu.tensor_core);
  EXPECT_EQ(verdicts.of(kernel(trace, "volta_sgemm_128x64_nn", 0)).tensor_core, TensorCoreUse::kNo);
}

TEST(KernelVerdictsTest, ARunIsOnTheCpuWhenEveryDeviceThatRanWorkIsACpu) {
  trace::Trace trace;
  EXPECT_FALSE(recordedOnCpu(trace));  // nothing says where
  trace.devices = {device(0, trace::DeviceKind::kCpu)};
  EXPECT_TRUE(recordedOnCpu(trace));
  trace.kernels.push_back(kernel(trace, "cpu relu forward", 0));
  EXPECT_TRUE(recordedOnCpu(trace));
  trace.devices.push_back(device(1, trace::DeviceKind::kGpu));
  EXPECT_TRUE(recordedOnCpu(trace));  // a GPU that ran nothing does not count
  trace.kernels.push_back(kernel(trace, "ampere_sgemm_128x64_nn", 1));
  EXPECT_FALSE(recordedOnCpu(trace));
  trace.kernels.back().device = 7;  // a device the trace does not list: not known to be a CPU
  EXPECT_FALSE(recordedOnCpu(trace));
}

}  // namespace
}  // namespace ampscope::analyzer
