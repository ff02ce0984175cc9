// Tests of analyzer/core/kernel_architecture.h and of chooseRecordedDevice's guess from kernel names
// for a trace that records no GPU.
#include "analyzer/core/kernel_architecture.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/core/device_table.h"

namespace ampscope::analyzer {
namespace {

using Capability = std::optional<std::pair<int, int>>;

TEST(KernelArchitectureTest, ReadsTheBuildTargetKernelNamesCarry) {
  const std::vector<std::pair<std::string, Capability>> cases = {
      {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
       std::pair{8, 0}},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
       std::pair{9, 0}},
      {"sm89_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x64x64_stage4_warpsize2x2x1_tensor16x8x32_algo2", std::pair{8, 9}},
      {"cutlass3x_sm100_bstensorop_s256x192x64gemm_block_scaled_ue4m3xf4_ue4m3xf4_f32_f16_f16_256x192x256_0_tnn_align32",
       std::pair{10, 0}},
      {"cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_void_bf16_128x128x64_1x1x1_0_tnn_align8", std::pair{9, 0}},
      {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_32x1_nn_align8>(Params)", std::pair{8, 0}},
      {"cutlass_75_tensorop_bf16_s1688gemm_bf16_64x64_32x6_tn_align1", std::pair{7, 5}},
      {"ampere_sgemm_128x64_nn", std::pair{8, 0}},
      {"volta_h884gemm_64x64_ldg8_nn", std::pair{7, 0}},
      {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", std::pair{7, 5}},
      {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<...>>>(T1::Params)",
       std::pair{9, 0}},
      {"fmhaSm100aKernel_QkvBfloat16H128ForGen", std::pair{10, 0}},
      {"fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
       "cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)",
       std::pair{8, 0}},
      {"void gemm<cute::SM80_16x8x16_F32F16F16F32_TN>(Params)", std::pair{8, 0}},
      {"nvjet_sm100_oohsh_128x256_256x5_2x2_2cta_h_bz_Avec16UE4M3_Bvec16UE4M3_TNT", std::pair{10, 0}},
      {"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", std::pair{8, 0}},
      // No build target in the name: cuBLAS nvjet without an sm token (which GPUs run them is not
      // documented), Triton, PyTorch's own kernels, helper names with "sm" in a word.
      {"nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT", std::nullopt},
      {"triton_poi_fused_add_0", std::nullopt},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, ...)", std::nullopt},
      {"smem_reduce_kernel_128", std::nullopt},
      {"asm90_kernel", std::nullopt},
      // Older than Volta, or numbers that are no capability.
      {"fmha_cutlassF_f32_aligned_64x64_rf_sm50", std::nullopt},
      {"kernel_sm1000", std::nullopt},
      {"sm77_kernel", std::nullopt},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(capabilityInKernelName(name), expected) << name;
  }
}

trace::Trace traceWithKernels(const std::vector<std::string>& names) {
  trace::Trace trace;
  std::int64_t t = 0;
  for (const std::string& name : names) {
    trace::Kernel kernel;
    kernel.start_ns = t;
    kernel.end_ns = t + 100;
    kernel.name = trace.strings.intern(name);
    trace.kernels.push_back(kernel);
    t += 200;
  }
  return trace;
}

TEST(KernelArchitectureTest, NewestArchitectureAnyKernelProvesWins) {
  // An H100 trace runs sm80_ kernels beside its sm90_ ones: the newest proves the lower bound.
  const trace::Trace trace = traceWithKernels({"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n", "ampere_sgemm_128x64_nn",
                                               "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "triton_poi_fused_add_0"});
  const std::optional<KernelArchitectureProof> proof = architectureFromKernelNames(trace);
  ASSERT_TRUE(proof.has_value());
  EXPECT_EQ(proof->compute_major, 9);
  EXPECT_EQ(proof->compute_minor, 0);
  EXPECT_EQ(proof->kernel, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
}

TEST(KernelGuessTest, Sm90KernelsGiveAtLeastHopper) {
  const trace::Trace trace = traceWithKernels({"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n",
                                               "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"});
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "H100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kKernelNames);
  EXPECT_TRUE(choice.lowerBound());
  EXPECT_EQ(choice.reason,
            "guessed from kernel names (sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n): at least Hopper (compute "
            "capability 9.0), read against the H100 SXM row; name the GPU with --gpu NAME");
}

TEST(KernelGuessTest, OnlySm80KernelsGiveAtLeastAmpere) {
  const trace::Trace trace = traceWithKernels({"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma",
                                               "void at::native::elementwise_kernel<128, 2>"});
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "A100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kKernelNames);
  EXPECT_NE(choice.reason.find("at least Ampere (compute capability 8.0)"), std::string::npos) << choice.reason;
  // The long kernel name is cut in the reason.
  EXPECT_NE(choice.reason.find("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize25..."), std::string::npos)
      << choice.reason;
}

TEST(KernelGuessTest, NoProvingNameLeavesTheDeviceUnknown) {
  const trace::Trace trace = traceWithKernels({"nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "triton_poi_fused_add_0"});
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kNone);
  EXPECT_EQ(choice.reason, "the trace names no GPU: name it with --gpu NAME, e.g. --gpu H100-SXM");
}

TEST(KernelGuessTest, GpuFlagOverridesTheGuess) {
  const trace::Trace trace = traceWithKernels({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"});
  const DeviceChoice choice = chooseRecordedDevice(trace, "H200");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "H200");
  EXPECT_EQ(choice.basis, DeviceBasis::kUserNamed);
  EXPECT_FALSE(choice.lowerBound());
}

TEST(KernelGuessTest, RecordedDeviceWinsOverKernelNames) {
  trace::Trace trace = traceWithKernels({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"});
  trace::Device gpu;
  gpu.name = trace.strings.intern("NVIDIA A100-SXM4-80GB");
  gpu.compute_major = 8;
  trace.devices.push_back(gpu);
  EXPECT_EQ(chooseRecordedDevice(trace, "").basis, DeviceBasis::kTraceName);
}

TEST(KernelGuessTest, ATraceNamingAGpuTheTableLacksIsNotGuessedAt) {
  trace::Trace trace = traceWithKernels({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"});
  trace::Device gpu;
  gpu.name = trace.strings.intern("Prototype accelerator");
  trace.devices.push_back(gpu);
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kNone);
  // An unnamed GPU device with nothing recorded is as good as none.
  trace::Trace unnamed = traceWithKernels({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"});
  unnamed.devices.push_back(trace::Device{});
  EXPECT_EQ(chooseRecordedDevice(unnamed, "").basis, DeviceBasis::kKernelNames);
}

TEST(KernelGuessTest, HostOpsOfACpuDeviceProveNothing) {
  trace::Trace trace = traceWithKernels({"sm90_fake_host_op"});
  trace::Device cpu;
  cpu.name = trace.strings.intern("CPU");
  cpu.kind = trace::DeviceKind::kCpu;
  trace.devices.push_back(cpu);
  EXPECT_FALSE(architectureFromKernelNames(trace).has_value());
}

TEST(KernelGuessTest, ANewerCapabilityThanAnyRowReadsAgainstItsArchitecturesRow) {
  // B300 (10.3) kernels: the table's 10.0 row, B200, as the lower bound.
  const trace::Trace trace = traceWithKernels({"nvjet_sm103_oohsh_128x256_TNT"});
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "B200");
  EXPECT_NE(choice.reason.find("at least Blackwell (compute capability 10.3)"), std::string::npos) << choice.reason;
}

}  // namespace
}  // namespace ampscope::analyzer
