// The Tensor Core rule file and its classifier: every row decides its own example, real kernel
// names from the shared traces get the verdicts the hardware gave them, and a broken rule file
// is refused with its line and column.

#include "analyzer/verdicts/tensor_core_rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "../test_support.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {
namespace {

const TensorCoreRules& builtinRules() { return TensorCoreRules::builtin(); }

std::string parseErrorOf(const std::string& text, const char* source = "t.tsv") {
  const trace::Result<TensorCoreRules> parsed = TensorCoreRules::parse(text, source);
  return parsed.ok() ? std::string("(parsed)") : parsed.error().message;
}

TEST(TensorCoreRulesTest, BuiltInFileParsesAndHasAVersion) {
  const trace::Status status = TensorCoreRules::builtinStatus();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_GE(builtinRules().version(), 1);
  EXPECT_GE(builtinRules().rules().size(), 50u);
  // The last row catches everything, so no kernel is left without a rule.
  EXPECT_EQ(builtinRules().rules().back().id, "not-matrix");
}

// ---- One test per row: its example is decided by that row, with that row's verdict. ----

class TensorCoreRuleRowTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TensorCoreRuleRowTest, ExampleIsDecidedByItsOwnRow) {
  const TensorCoreRule& row = builtinRules().rules().at(GetParam());
  const TensorCoreVerdict verdict = builtinRules().classify(row.example);
  EXPECT_EQ(verdict.rule_id, row.id)
      << "line " << row.line << ": the example is decided by an earlier row; move \"" << row.id
      << "\" above \"" << verdict.rule_id << "\" or make that row more specific";
  EXPECT_STREQ(tensorCoreUseName(verdict.tensor_core), tensorCoreUseName(row.tensor_core));
  EXPECT_STREQ(precisionName(verdict.precision), precisionName(row.precision));
  EXPECT_STREQ(confidenceName(verdict.confidence), confidenceName(row.confidence));
}

std::string rowTestName(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = builtinRules().rules().at(info.param).id;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(BuiltInRows, TensorCoreRuleRowTest,
                         ::testing::Range<std::size_t>(0, builtinRules().rules().size()),
                         rowTestName);

// ---- Further real names, beyond the one example per row. ----

TEST(TensorCoreRulesTest, RealKernelNamesFromPublicProfilesGetTheirFamilyVerdicts) {
  struct Case {
    const char* name;
    const char* rule;
    MathPrecision precision;
  };
  using P = MathPrecision;
  const Case cases[] = {
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", "nvjet-bf16", P::kBf16},
      {"nvjet_tss_256x128_64x4_1x2_h_bz_coopA_TNT", "nvjet-bf16", P::kBf16},
      {"nvjet_sm90_tst_32x64_64x16_1x2_h_bz_splitK_TNN", "nvjet-bf16", P::kBf16},
      {"nvjet_sm120_tst_mma_64x64x128_3_32x32x128_tmaAB_alignCD4_bz_TNNN", "nvjet-bf16", P::kBf16},
      {"nvjet_sm100_qqtst_128x256_128x6_2x1_2cta_v_bz_bias_TNT", "nvjet-fp8", P::kFp8},
      {"nvjet_sm100_qqsss_128x128_128x8_2x4_2cta_h_bz_Avec32UE8M0_Bvec32UE8M0_TNT", "nvjet-fp8", P::kFp8},
      {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x64x256_s3_et128x64_m128x64x32_cga1x1x1_16dp256b_TN_"
       "transOut_schedS_biasM_bN_ldgsts_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
       "trtllm-bmm-fp4", P::kFp4},
      {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_"
       "segment_k_off_kernel__5x_cublas", "xmma-tf32", P::kTf32},
      {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
       "segment_k_off_kernel__5x_cublas", "xmma-fp16", P::kFp16},
      {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
       "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn", "xmma-bf16", P::kBf16},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_"
       "alignc4_execute_kernel__5x_cublas", "xmma-ffma-fp32", P::kFp32Simt},
      {"volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1", "s884-fp16", P::kFp16},
      {"volta_h884cudnn_256x128_ldg8_relu_exp_small_nhwc_tn_v1", "h884-fp16", P::kFp16},
      {"cutlass_70_tensorop_f16_s884gemm_relu_f16_128x128_tn_align8", "s884-fp16", P::kFp16},
      {"cutlass_tensorop_f16_s1688gemm_f16_64x64_32x2_nn_align1", "s1688-fp16", P::kFp16},
      {"cutlass_tensorop_f16_s16816gemm_f16_256x128_32x3_tn_align8", "s16816-fp16", P::kFp16},
      {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8", "s16816-bf16", P::kBf16},
      {"cutlass_80_tensorop_s16816gemm_bf16_256x128_32x3_nn_align8", "s16816-bf16", P::kBf16},
      {"ampere_s1688gemm_bf16_128x128_ldg8_stages_32x1_nt", "s1688-bf16", P::kBf16},
      {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>"
       "(T1::Params)", "wmma-s161616-bf16", P::kBf16},
      {"cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x1x1_0_tnn_align8_"
       "warpspecialized_cooperative_epi_tma", "cutlass3x-bf16", P::kBf16},
      {"void pytorch_flash::flash_fwd_splitkv_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 64, "
       "128, 4, 0, 0, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 4, "
       "cutlass::bfloat16_t>>, 0, 0, 0, 0, 1, 1, 0>(pytorch_flash::Flash_fwd_params)",
       "flash-attn-bf16", P::kBf16},
      {"fmha_cutlassF_f16_aligned_64x64_rf_sm80", "memeff-attn-fp16", P::kFp16},
      {"ampere_sgemm_128x64_nn", "sgemm", P::kFp32Simt},
      {"volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", "scudnn", P::kFp32Simt},
      {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, "
       "float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, "
       "int, int, int, int)", "cudnn-conv-engine-fp32", P::kFp32Simt},
      {"ampere_dgemm_64x64_nn", "dgemm", P::kFp64},
      // Names that must not trip a family token: "Gamma" holds no "gmma", hex ids hold no "h884".
      {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, "
       "long, float const*, float const*, float const*, float const*, float*, float*)",
       "not-matrix", P::kUnknown},
      {"_ZN2at6native78_GLOBAL__N__54_tmpxft_00008e34_00000000_11_SoftMax_compute_75_cpp1_ii_"
       "a331004219cunn_SoftMaxForwardILi2EfffNS1_25LogSoftMaxForwardEpilogueEEEvPT2_PT0_i",
       "not-matrix", P::kUnknown},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", "not-matrix", P::kUnknown},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const TensorCoreVerdict verdict = builtinRules().classify(c.name);
    EXPECT_EQ(verdict.rule_id, c.rule);
    EXPECT_STREQ(precisionName(verdict.precision), precisionName(c.precision));
  }
}

// ---- Families of today's custom kernels: one test each, on names from public profiles. ----

void expectVerdict(const char* name, const char* rule, TensorCoreUse use, MathPrecision precision) {
  SCOPED_TRACE(name);
  const TensorCoreVerdict verdict = builtinRules().classify(name);
  EXPECT_EQ(verdict.rule_id, rule);
  EXPECT_STREQ(tensorCoreUseName(verdict.tensor_core), tensorCoreUseName(use));
  EXPECT_STREQ(precisionName(verdict.precision), precisionName(precision));
}

TEST(TensorCoreRulesTest, DeepGemmFp8GemmsAreFp8TensorCoreDespiteTheirBf16Output) {
  expectVerdict("void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 0u, 64u, 9u, 4u, 128u, 128u, 1u, "
                "true, (deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap_st, "
                "CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)",
                "deepgemm-fp8", TensorCoreUse::kYes, MathPrecision::kFp8);
  expectVerdict("void deep_gemm::sm90_fp8_gemm_1d2d_impl<(cute::UMMA::Major)0, 0u, 4096u, 1024u, 1u, 256u, 128u, "
                "128u, 128u, 128u, 128u, 3u, 128u, 256u, 2u, true, 132u, (deep_gemm::GemmType)0, "
                "deep_gemm::epilogue::transform::EpilogueIdentity>(float*, int*, unsigned int, unsigned int, "
                "unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)",
                "deepgemm-fp8", TensorCoreUse::kYes, MathPrecision::kFp8);
  expectVerdict("void dpsk::gemm::fp8_gemm_kernel<7168u, 2048u, 128u, 56u, 128u, 6u, 128u, 128u, 1u, "
                "(dpsk::gemm::GemmType)0>(__nv_bfloat16*, float*, int*, unsigned int, unsigned int, unsigned int, "
                "unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)",
                "deepgemm-fp8", TensorCoreUse::kYes, MathPrecision::kFp8);
  expectVerdict("void deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl<(cute::UMMA::Major)0, (cute::UMMA::Major)0, 32u, 32u, 0u, "
                "768u, 6144u, 128u, 128u, 128u, 129u, 128u, 128u, 128u, 8u, 128u, 128u, 2u, true, 148u, true, "
                "(deep_gemm::GemmType)2, false, cutlass::float_e4m3_t, cutlass::float_e4m3_t, cutlass::bfloat16_t, "
                "deep_gemm::epilogue::transform::EpilogueIdentity>(int*, unsigned int, unsigned int, unsigned int, "
                "CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)",
                "deepgemm-fp8", TensorCoreUse::kYes, MathPrecision::kFp8);
}

TEST(TensorCoreRulesTest, CudnnFusedAttentionEnginesAreTensorCoreOfAnUnstatedPrecision) {
  for (const char* name : {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_"
                           "cga1x1x1_kernel0_0",
                           "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x4x1_cga1x1x1",
                           "cudnn_generated_fort_native_sdpa_sm120_flash_fprop_f16_knob_3_64x64x128_4x1x1_cga1x1x1",
                           "cudnn_generated_oss_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_"
                           "kernel0_0"}) {
    expectVerdict(name, "cudnn-sdpa", TensorCoreUse::kYes, MathPrecision::kUnknown);
  }
}

TEST(TensorCoreRulesTest, InductorMatmulTemplatesAreLikelyTensorCoreAndItsOtherKernelsAreNot) {
  for (const char* name : {"triton_tem_fused_addmm_t_view_3", "triton_tem_fused_bmm_19", "triton_tem_fused_mm_relu_0",
                           "triton_tem_fused_bmm_clone_mm_t_transpose_view_24", "triton_tem_fused_mm_t_3"}) {
    expectVerdict(name, "triton-template-mm", TensorCoreUse::kYes, MathPrecision::kUnknown);
    EXPECT_EQ(builtinRules().classify(name).confidence, Confidence::kMedium);
  }
  // A reduction that computes an mm reduces on CUDA cores (tl.sum, not tl.dot).
  expectVerdict("triton_red_fused_mm_0", "triton-pointwise-reduction", TensorCoreUse::kNo, MathPrecision::kUnknown);
  for (const char* name : {"triton_red_fused_argmax_mm_1", "triton_poi_fused_add_addmm_mul_sigmoid_3",
                           "triton_per_fused_addmm_mean_relu_sub_1", "triton_for_fused_0"}) {
    expectVerdict(name, "triton-pointwise-reduction", TensorCoreUse::kNo, MathPrecision::kUnknown);
  }
}

TEST(TensorCoreRulesTest, CutlassThreeKernelsTakeThePrecisionOfTheirMmaAtomNotOfOtherTypesInTheName) {
  // The rows' examples are whole CUTLASS 3 names; their epilogues name other element types.
  for (const TensorCoreRule& row : builtinRules().rules()) {
    if (!row.id.starts_with("cute-")) continue;
    SCOPED_TRACE(row.id);
    EXPECT_NE(row.example.find("cutlass::gemm::kernel::GemmUniversal"), std::string::npos);
    EXPECT_EQ(builtinRules().classify(row.example).rule_id, row.id);
  }
  const std::string fp8 = [] {
    for (const TensorCoreRule& row : builtinRules().rules()) {
      if (row.id == "cute-mma-fp8") return row.example;
    }
    return std::string();
  }();
  EXPECT_NE(fp8.find("cutlass::bfloat16_t"), std::string::npos);
  EXPECT_NE(fp8.find("cutlass::half_t"), std::string::npos);
  expectVerdict(fp8.c_str(), "cute-mma-fp8", TensorCoreUse::kYes, MathPrecision::kFp8);
  // The copy atoms beside the MMA atom (SM80_CP_ASYNC..., SM90_U32x4_STSM_N) are no MMA.
  expectVerdict("cute::Copy_Atom<cute::SM90_U32x4_STSM_N, cutlass::half_t> SM80_CP_ASYNC_CACHEALWAYS", "not-matrix",
                TensorCoreUse::kNo, MathPrecision::kUnknown);
}

TEST(TensorCoreRulesTest, CutlassSimtKernelsRunOnCudaCores) {
  expectVerdict("cutlass_simt_hgemm_256x128_8x2_nn_align1", "cutlass-simt-fp16", TensorCoreUse::kNo,
                MathPrecision::kFp16);
  expectVerdict("cutlass_simt_sgemm_128x128_8x2_nn_align1", "sgemm", TensorCoreUse::kNo, MathPrecision::kFp32Simt);
  expectVerdict("cutlass_simt_dgemm_128x128_8x2_nn_align1", "dgemm", TensorCoreUse::kNo, MathPrecision::kFp64);
  expectVerdict("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(T1::Params)", "sgemm",
                TensorCoreUse::kNo, MathPrecision::kFp32Simt);
}

TEST(TensorCoreRulesTest, MatrixLikeNamesOfUnknownFamiliesAreUnknownAndLookAlikesAreNot) {
  for (const char* name : {"ampere_cgemm_32x32_tn", "void my_attention_fwd<half>(Params)", "mma_sync_kernel"}) {
    expectVerdict(name, "unknown-matrix", TensorCoreUse::kUnknown, MathPrecision::kUnknown);
  }
  // "Gamma" holds "mma" inside a word; it is no MMA.
  expectVerdict("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long)",
                "not-matrix", TensorCoreUse::kNo, MathPrecision::kUnknown);
}

// ---- Alignment, the evidence later tied to misaligned GEMM shapes. ----

TEST(TensorCoreRulesTest, AlignmentComesFromAlignNAndIsZeroWhenAbsent) {
  EXPECT_EQ(alignmentFromName("cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align1"), 1);
  EXPECT_EQ(alignmentFromName("cutlass_tensorop_h16816gemm_64x64_64x5_tn_align2"), 2);
  EXPECT_EQ(alignmentFromName("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_"
                              "align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)"),
            4);
  EXPECT_EQ(alignmentFromName("cutlass_75_tensorop_i8816gemm_s8_128x128_tn_align16"), 16);
  EXPECT_EQ(alignmentFromName("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_"
                              "warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
            4);
  EXPECT_EQ(alignmentFromName("volta_sgemm_128x64_nn"), 0);
  EXPECT_EQ(alignmentFromName("fmha_cutlassF_f16_aligned_64x64_rf_sm80"), 0);
  EXPECT_EQ(alignmentFromName("nvjet_sm120_tst_mma_64x64x128_3_32x32x128_tmaAB_alignCD4_bz_TNNN"), 0);
  EXPECT_EQ(builtinRules().classify("cutlass_tensorop_f16_s1688gemm_f16_64x64_32x2_nn_align1").alignment, 1);
}

TEST(TensorCoreRulesTest, RequiredLiteralsAreReadConservativelyFromEachExpression) {
  using Literals = std::vector<std::vector<std::string>>;
  // Each expression's groups, one after the other.
  const auto literalsOf = [](const std::string& pattern, const std::string& example) {
    const std::string text = "# ampscope tensor core rules, version 1\n"
                             "id\tpattern\tarchitecture\tprecision\tverdict\tconfidence\texample\tnote\n"
                             "r\t" + pattern + "\tany\tunknown\tnot_tensor_core\tlow\t" + example + "\t\n";
    const trace::Result<TensorCoreRules> parsed = TensorCoreRules::parse(text, "t.tsv");
    if (!parsed.ok()) return Literals{{parsed.error().message}};
    Literals out;
    for (const RuleExpression& e : parsed->rules().front().expressions) {
      out.insert(out.end(), e.required_literals.begin(), e.required_literals.end());
    }
    return out;
  };
  EXPECT_EQ(literalsOf("(?:flash_fwd|flash_bwd) && bfloat16_t", "flash_bwd<bfloat16_t>"),
            (Literals{{"flash_fwd", "flash_bwd"}, {"bfloat16_t"}}));
  EXPECT_EQ(literalsOf("(?i)ABCD", "xabcdx"), (Literals{{"abcd"}}));
  // Optional and repeated characters end a literal; classes and escapes add nothing; an
  // alternation counts only when each branch names a literal.
  EXPECT_EQ(literalsOf("xmmaa*_\\w+gemm\\.x[-]", "xmma_1gemm.x-"), (Literals{{"xmma"}, {"gemm.x"}}));
  EXPECT_EQ(literalsOf("(?:abc)?def\\x41zz", "defAzz"), (Literals{{"def"}}));
  EXPECT_EQ(literalsOf("abcd|e-|-", "-"), Literals{});
  // Case flags inside a pattern change what its literals match: nothing is required of it.
  EXPECT_EQ(literalsOf("abc(?i)def", "abcDEF"), Literals{});
  EXPECT_EQ(literalsOf("abc(?i:def)", "abcDEF"), (Literals{{"abc"}}));
}

// ---- RE2 patterns: expressions joined by " && ", matched over whole names. ----

std::string oneRowFile(const std::string& pattern, const std::string& verdict, const std::string& example) {
  return "# ampscope tensor core rules, version 1\n"
         "id\tpattern\tarchitecture\tprecision\tverdict\tconfidence\texample\tnote\n"
         "r\t" + pattern + "\tampere\tBF16\t" + verdict + "\thigh\t" + example + "\t\n";
}

TEST(TensorCoreRulesTest, AllOfPatternMatchesOnlyWhenEveryExpressionMatchesInAnyOrder) {
  const trace::Result<TensorCoreRules> rules =
      TensorCoreRules::parse(oneRowFile("s16816gemm && _bf16", "tensor_core", "x_bf16_s16816gemm"), "t.tsv");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  ASSERT_EQ(rules->rules().front().expressions.size(), 2u);
  EXPECT_EQ(rules->classify("ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn").rule_id, "r");
  EXPECT_EQ(rules->classify("s16816gemm then _bf16").rule_id, "r");  // either order
  EXPECT_EQ(rules->classify("ampere_fp16_s16816gemm_fp16_64x64").rule_id, "");  // one expression fails
  EXPECT_EQ(rules->classify("ampere_fp16_s16816gemm_fp16_64x64").tensor_core, TensorCoreUse::kUnknown);
}

TEST(TensorCoreRulesTest, NamesAreMatchedWholeEvenBeyondEightKiB) {
  const trace::Result<TensorCoreRules> rules =
      TensorCoreRules::parse(oneRowFile("^void my_kernel<.*bfloat16_t>$", "tensor_core", "void my_kernel<bfloat16_t>"),
                             "t.tsv");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  // A 20 KiB template argument list before the type token: std::regex recursed per character here
  // and names were cut at 8 KiB, which hid the token.
  const std::string name = "void my_kernel<" + std::string(20 * 1024, 'x') + ", bfloat16_t>";
  EXPECT_EQ(rules->classify(name).rule_id, "r");
  EXPECT_EQ(rules->classify(name + "x").rule_id, "");  // "$": the end of the whole name
  // The built-in rules on a long real-shaped name: the FP8 token sits after 10 KiB of arguments.
  const std::string flash = "void cutlass::device_kernel<flash::FlashAttnFwdSm90<" + std::string(10 * 1024, ' ') +
                            "cutlass::float_e4m3_t> >";
  EXPECT_EQ(builtinRules().classify(flash).rule_id, "flash-attn-fp8");
}

TEST(TensorCoreRulesTest, VerdictColumnHasThreeValues) {
  for (const char* verdict : {"tensor_core", "not_tensor_core", "unknown"}) {
    const trace::Result<TensorCoreRules> rules = TensorCoreRules::parse(oneRowFile("gemm", verdict, "gemm"), "t.tsv");
    ASSERT_TRUE(rules.ok()) << rules.error().message;
    EXPECT_STREQ(tensorCoreUseName(rules->classify("gemm").tensor_core), verdict);
  }
  EXPECT_NE(parseErrorOf(oneRowFile("gemm", "maybe", "gemm")).find("expected one of tensor_core, not_tensor_core, unknown"),
            std::string::npos);
  // Host is a verdict of the device a kernel ran on, never of its name: no row may say it.
  EXPECT_NE(parseErrorOf(oneRowFile("gemm", "host", "gemm"))
                .find("found verdict \"host\", expected one of tensor_core, not_tensor_core, unknown"),
            std::string::npos);
  EXPECT_STREQ(tensorCoreUseName(TensorCoreUse::kHost), "host");
}

// ---- Parse errors name the source, the line and the column. ----

std::string ruleFile(const std::vector<std::string>& rows) {
  std::string text = "# ampscope tensor core rules, version 3\n"
                     "id\tpattern\tarchitecture\tprecision\tverdict\tconfidence\texample\tnote\n";
  for (const std::string& row : rows) text += row + "\n";
  return text;
}

std::string parseError(const std::string& text) { return parseErrorOf(text, "my_rules.tsv"); }

TEST(TensorCoreRulesTest, ParsesRowsVersionCaseInsensitivePatternsAndWindowsLineEnds) {
  const trace::Result<TensorCoreRules> parsed = TensorCoreRules::parse(
      "# ampscope tensor core rules, version 7\r\n"
      "id\tpattern\tarchitecture\tprecision\tverdict\tconfidence\texample\tnote\r\n"
      "# a comment\r\n\r\n"
      "mma\t(?i)hmma\tvolta\tFP16\ttensor_core\tmedium\tVolta_hmma_fprop\tHMMA\r\n"
      "rest\t^\tany\tunknown\tnot_tensor_core\tlow\tanything\t\r\n",
      "my_rules.tsv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->version(), 7);
  ASSERT_EQ(parsed->rules().size(), 2u);
  EXPECT_EQ(parsed->rules()[0].line, 5);
  EXPECT_EQ(parsed->rules()[0].architecture, GpuArchitecture::kVolta);
  const TensorCoreVerdict verdict = parsed->classify("my_HMMA_kernel");
  EXPECT_EQ(verdict.rule_id, "mma");
  EXPECT_TRUE(verdict.tensor_core);
  EXPECT_EQ(verdict.confidence, Confidence::kMedium);
  EXPECT_EQ(parsed->classify("elementwise").rule_id, "rest");
}

TEST(TensorCoreRulesTest, RowWithWrongColumnCountNamesSourceAndLine) {
  const std::string error =
      parseError(ruleFile({"a\tsgemm\tany\tFP32-SIMT\tnot_tensor_core\tlow\tvolta_sgemm_64x64_nn\t",
                           "b\tgemm\tany\tunknown"}));
  EXPECT_NE(error.find("my_rules.tsv:4:1:"), std::string::npos) << error;
  EXPECT_NE(error.find("found 4 tab-separated fields, expected 8"), std::string::npos) << error;
}

TEST(TensorCoreRulesTest, InvalidRegularExpressionNamesLineAndPatternColumn) {
  const std::string error =
      parseError(ruleFile({"broken\t(h884\tvolta\tFP16\ttensor_core\thigh\th884gemm\t"}));
  EXPECT_NE(error.find("my_rules.tsv:3:8:"), std::string::npos) << error;
  EXPECT_NE(error.find("RE2 regular expression"), std::string::npos) << error;
  // In a pattern of several expressions, the column is where the broken one starts; a lookahead
  // (which RE2 lacks) is refused with the way to write it.
  const std::string second =
      parseError(ruleFile({"broken\th884 && ^(?=.*gemm)\tvolta\tFP16\ttensor_core\thigh\th884gemm\t"}));
  EXPECT_NE(second.find("my_rules.tsv:3:16:"), std::string::npos) << second;
  EXPECT_NE(second.find("join expressions with \" && \""), std::string::npos) << second;
  EXPECT_NE(parseError(ruleFile({"empty\th884 && \tvolta\tFP16\ttensor_core\thigh\th884gemm\t"}))
                .find("my_rules.tsv:3:15: found an empty expression"),
            std::string::npos);
}

TEST(TensorCoreRulesTest, UnknownPrecisionNamesTheValueAndTheAllowedOnes) {
  const std::string error =
      parseError(ruleFile({"odd\th884\tvolta\tFP12\ttensor_core\thigh\th884gemm\t"}));
  EXPECT_NE(error.find("my_rules.tsv:3:16:"), std::string::npos) << error;
  EXPECT_NE(error.find("\"FP12\""), std::string::npos) << error;
  EXPECT_NE(error.find("FP16, BF16"), std::string::npos) << error;
}

TEST(TensorCoreRulesTest, OtherBrokenFilesAreRefusedWithTheirPlace) {
  EXPECT_NE(parseError("id\tpattern\n").find("my_rules.tsv:1:1: found \"id\tpattern\""),
            std::string::npos);
  EXPECT_NE(parseError("# ampscope tensor core rules, version two\n").find("my_rules.tsv:1:39:"),
            std::string::npos);
  EXPECT_NE(parseError(ruleFile({"x\th884\tvolta\tFP16\ttensor_core\thigh\tsgemm\t"}))
                .find("my_rules.tsv:3:36: the example of rule \"x\" does not match"),
            std::string::npos);
  EXPECT_NE(parseError(ruleFile({"x\th884\tvolta\tFP16\ttensor_core\thigh\th884\t",
                                 "x\ts884\tvolta\tFP16\ttensor_core\thigh\ts884\t"}))
                .find("my_rules.tsv:4:1: found the id \"x\" again"),
            std::string::npos);
  EXPECT_NE(parseError(ruleFile({"x\th884\tpascal\tFP16\ttensor_core\thigh\th884\t"}))
                .find("expected one of any, volta, turing"),
            std::string::npos);
  EXPECT_NE(parseError("# ampscope tensor core rules, version 1\nid\tpattern\tarch\n")
                .find("my_rules.tsv:2:12: found column \"arch\", expected \"architecture\""),
            std::string::npos);
}

// ---- Real traces: the verdicts the GPUs' own kernels deserve. ----

struct ClassifiedKernel {
  std::string name;
  TensorCoreVerdict verdict;
};

// The row a plain search over every row picks, without classify()'s literal prefilter.
std::string firstMatchingRow(const std::string& name) {
  for (const TensorCoreRule& rule : builtinRules().rules()) {
    if (rule.matches(name)) return rule.id;
  }
  return "";
}

// Every distinct kernel name of a trace with its verdict, checked against the unfiltered search.
std::vector<ClassifiedKernel> classifyTraceKernels(const std::string& path) {
  trace::Result<trace::Trace> imported = import::importTrace(path);
  if (!imported.ok()) {
    ADD_FAILURE() << imported.error().message;
    return {};
  }
  std::set<trace::StringId> names;
  for (const trace::Kernel& kernel : imported->kernels) names.insert(kernel.name);
  std::vector<ClassifiedKernel> out;
  for (trace::StringId id : names) {
    const std::string name(imported->str(id));
    out.push_back({name, builtinRules().classify(name)});
    EXPECT_EQ(out.back().verdict.rule_id, firstMatchingRow(name)) << name;
  }
  return out;
}

void expectNoTensorCoreKernels(const std::string& path) {
  const std::vector<ClassifiedKernel> kernels = classifyTraceKernels(path);
  ASSERT_FALSE(kernels.empty());
  int fp32_simt = 0;
  for (const ClassifiedKernel& k : kernels) {
    EXPECT_FALSE(k.verdict.tensor_core) << k.name << " (rule " << k.verdict.rule_id << ")";
    if (k.verdict.precision == MathPrecision::kFp32Simt) ++fp32_simt;
  }
  EXPECT_GT(fp32_simt, 0) << "the FP32 GEMM/convolution kernels were not recognised";
}

TEST(TensorCoreRulesTest, V100ResNetTracesUseNoTensorCores) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  expectNoTensorCoreKernels(workers0);
  expectNoTensorCoreKernels(workers4);
}

TEST(TensorCoreRulesTest, NvprofTransformerTraceUsesNoTensorCores) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  expectNoTensorCoreKernels(path);
}

TEST(TensorCoreRulesTest, A100CutlassS1688KernelsAreTf32TensorCoreAndAmpereSgemmIsNot) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  int tf32 = 0, sgemm = 0;
  std::set<int> alignments;
  for (const ClassifiedKernel& k : classifyTraceKernels(path)) {
    SCOPED_TRACE(k.name);
    if (k.name.find("cutlass_80_tensorop_s1688gemm") != std::string::npos) {
      ++tf32;
      EXPECT_TRUE(k.verdict.tensor_core);
      EXPECT_EQ(k.verdict.precision, MathPrecision::kTf32);
      EXPECT_EQ(k.verdict.confidence, Confidence::kHigh);
      alignments.insert(k.verdict.alignment);
    } else if (k.name.find("ampere_sgemm") != std::string::npos) {
      ++sgemm;
      EXPECT_FALSE(k.verdict.tensor_core);
      EXPECT_EQ(k.verdict.precision, MathPrecision::kFp32Simt);
    }
  }
  EXPECT_GE(tf32, 10);
  EXPECT_GT(sgemm, 0);
  EXPECT_EQ(alignments, (std::set<int>{1, 4}));  // align1 variants come from odd dimensions
}

TEST(TensorCoreRulesTest, H100MatrixKernelsAreAllBf16TensorCore) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  std::set<std::string> families_seen;
  const char* const families[] = {"sm90_xmma_gemm_bf16", "s16816fprop", "s161616gemm",
                                  "s1688gemm_bf16"};
  for (const ClassifiedKernel& k : classifyTraceKernels(path)) {
    SCOPED_TRACE(k.name);
    for (const char* family : families) {
      if (k.name.find(family) != std::string::npos) families_seen.insert(family);
    }
    if (k.verdict.tensor_core) {
      EXPECT_EQ(k.verdict.precision, MathPrecision::kBf16);
    }
    const bool in_family = k.name.find("gemm") != std::string::npos &&
                           k.name.find("gemv") == std::string::npos;
    if (in_family || k.name.find("fprop") != std::string::npos) {
      EXPECT_TRUE(k.verdict.tensor_core) << "rule " << k.verdict.rule_id;
    }
  }
  EXPECT_EQ(families_seen.size(), std::size(families));
}

// PyProf's own per-kernel output for the nvprof trace: where it gave a Tensor Core verdict
// (TC column 0 or 1; "-" and "na" mean it gave none), ours agrees.
TEST(TensorCoreRulesTest, AgreesWithPyProfTensorCoreColumnOnTheTransformerTrace) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/lm.csv");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line.rfind("\"Kernel\",\"Module\",\"Op\",\"Direction\",\"Sil(ns)\",\"TC\"", 0), 0u);
  int compared = 0;
  while (std::getline(in, line)) {
    // Every field is quoted and none holds a quote: fields are what lies between quote pairs.
    std::vector<std::string> fields;
    for (std::size_t open = line.find('"'); open != std::string::npos;
         open = line.find('"', line.find('"', open + 1) + 1)) {
      const std::size_t close = line.find('"', open + 1);
      fields.push_back(line.substr(open + 1, close - open - 1));
    }
    ASSERT_GE(fields.size(), 6u) << line;
    if (fields[5] != "0" && fields[5] != "1") continue;
    ++compared;
    EXPECT_EQ(static_cast<bool>(builtinRules().classify(fields[0]).tensor_core), fields[5] == "1") << fields[0];
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace ampscope::analyzer
