// Tests of analyzer/verdicts/gemm_kernel_family.h: which kind of GEMM kernel a name says ran, and when an
// op's FP32 path is one that falls short of the FP32 model where half precision does not. The
// names are cuBLAS's and CUTLASS's as real traces record them (tests/data/h100 and the shared
// traces' V100, A100 and H100 runs).

#include "analyzer/verdicts/gemm_kernel_family.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

constexpr int kH100Sms = 132;

GemmDims gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.batch = batch;
  return d;
}

TEST(GemmKernelFamilyTest, TheBlockTileInTheNameSaysSmallOrLarge) {
  for (const char* name : {"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
                           "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)",
                           "volta_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_64x32_sliced1x4_nn", "ampere_sgemm_128x32_nn",
                           "volta_sgemm_32x128_nt"}) {
    EXPECT_EQ(gemmKernelFamily(name), GemmKernelFamily::kSmallTile) << name;
  }
  for (const char* name : {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
                           "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_128x256_8x4_nt_align1::Params)",
                           "volta_sgemm_128x64_nn", "ampere_sgemm_128x128_tn"}) {
    EXPECT_EQ(gemmKernelFamily(name), GemmKernelFamily::kLargeTile) << name;
  }
}

TEST(GemmKernelFamilyTest, CublasKernelsForSkinnyProductsAreNamedByTheirFamily) {
  EXPECT_EQ(gemmKernelFamily("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float const>, "
                             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmallNParams<"
                             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
                             "cublasGemvTensorStridedBatched<float>, float>)"),
            GemmKernelFamily::kSmallN);
  EXPECT_EQ(gemmKernelFamily("void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false>"), GemmKernelFamily::kSmallN);
  EXPECT_EQ(gemmKernelFamily("void sgemm_largek_lds64<true, false, 5, 5, 4, 4, 4, 34>(float*, float const*, float const*, int, int, int, "
                             "int, int, int, float const*, float const*, float, float, int, int, int*, int*)"),
            GemmKernelFamily::kSplitLargeK);
  EXPECT_EQ(gemmKernelFamily("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false, cublasGemvParams<"
                             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
                             "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<...>, float, float)"),
            GemmKernelFamily::kGemv);
  EXPECT_EQ(gemmKernelFamily("void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024, cublasGemvParams<...> >"), GemmKernelFamily::kGemv);
  EXPECT_EQ(gemmKernelFamily("void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensor<float const>, cublasGemvTensorStridedBatched<float> > >"),
            GemmKernelFamily::kGemv);
  EXPECT_EQ(gemmKernelFamily("void gemmk1_kernel<int, float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float const>, "
                             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, 0>"),
            GemmKernelFamily::kOuterProduct);
}

TEST(GemmKernelFamilyTest, HelperKernelsAndNamesWithoutATileAreUnknown) {
  for (const char* name : {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, float, float, float, true, "
                           "false, false, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float const*, "
                           "float const*, float const*, float const*, float*, void*, long, float*, int*)",
                           "void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>, float const*, float*, float const*)",
                           "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>(int, int, int, float const*)",
                           "void magma_sgemmEx_kernel<float, float, float, 0, 0, 6, 3, 5, 3, 3>", ""}) {
    EXPECT_EQ(gemmKernelFamily(name), GemmKernelFamily::kUnknown) << name;
  }
}

TEST(GemmKernelFamilyTest, EveryFamilyHasItsOwnName) {
  EXPECT_STREQ(gemmKernelFamilyName(GemmKernelFamily::kSmallTile), "small_tile");
  EXPECT_STREQ(gemmKernelFamilyName(GemmKernelFamily::kSplitLargeK), "split_large_k");
  EXPECT_STREQ(gemmKernelFamilyName(GemmKernelFamily::kUnknown), "unknown");
}

TEST(GemmKernelFamilyTest, SmallTilesGemmSnAndLargeKSplitsFallShortOnAnyShape) {
  for (const GemmKernelFamily family : {GemmKernelFamily::kSmallTile, GemmKernelFamily::kSmallN, GemmKernelFamily::kSplitLargeK}) {
    EXPECT_TRUE(fp32PathFallsShort(family, gemm(32, 256, 256), kH100Sms)) << gemmKernelFamilyName(family);
    EXPECT_TRUE(fp32PathFallsShort(family, gemm(4096, 4096, 256), kH100Sms)) << gemmKernelFamilyName(family);
  }
}

TEST(GemmKernelFamilyTest, LargeTilesFallShortOnlyWhereTheShapeLeavesTheSmsFewBlocks) {
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kLargeTile, gemm(4096, 4096, 4096), kH100Sms));
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kLargeTile, gemm(2048, 2048, 2048), kH100Sms));
  // 1024 x 1024: 128 tiles of 128 x 64 for 132 SMs.
  EXPECT_TRUE(fp32PathFallsShort(GemmKernelFamily::kLargeTile, gemm(1024, 1024, 4096), kH100Sms));
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kLargeTile, gemm(1024, 1024, 4096), 108));
  // Whatever the name, a product of 8 or 32 rows is a skinny one.
  EXPECT_TRUE(fp32PathFallsShort(GemmKernelFamily::kUnknown, gemm(8, 4096, 4096), kH100Sms));
  EXPECT_TRUE(fp32PathFallsShort(GemmKernelFamily::kUnknown, gemm(65536, 32, 4096), kH100Sms));
  // A batch of small products: [8, 7, 4096] x [8, 4096, 16].
  EXPECT_TRUE(fp32PathFallsShort(GemmKernelFamily::kUnknown, gemm(7, 16, 4096, 8), kH100Sms));
  // Enough tiles of a batch fill the SMs.
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kUnknown, gemm(512, 512, 64, 64), kH100Sms));
}

TEST(GemmKernelFamilyTest, AMatrixTimesOneVectorOrAnOuterProductRunsTheSameKindOfKernelInHalfPrecision) {
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kGemv, gemm(1, 4096, 4096), kH100Sms));
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kUnknown, gemm(4096, 1, 4096), kH100Sms));
  EXPECT_TRUE(fp32PathFallsShort(GemmKernelFamily::kGemv, gemm(7, 16, 4096, 8), kH100Sms));
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kOuterProduct, gemm(4096, 4096, 1), kH100Sms));
}

TEST(GemmKernelFamilyTest, ConvolutionsAreNotJudgedByGemmKernelFamilies) {
  GemmDims conv = gemm(32, 64, 576);
  conv.convolution = true;
  EXPECT_FALSE(fp32PathFallsShort(GemmKernelFamily::kSmallTile, conv, kH100Sms));
}

}  // namespace
}  // namespace ampscope::analyzer
