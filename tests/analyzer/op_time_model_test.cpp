// Tests of analyzer/model/op_time_model.h: the shape-aware time of matrix and memory-bound work.

#include "analyzer/model/op_time_model.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

const DeviceSpec& device(const char* name) {
  const DeviceSpec* spec = findDevice(name);
  EXPECT_NE(spec, nullptr) << name;
  return *spec;
}

GemmDims gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  return d;
}

double flops(const GemmDims& d) {
  return 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k) * static_cast<double>(d.batch);
}
double bytes(const GemmDims& d, int element) {
  const double m = static_cast<double>(d.m);
  const double n = static_cast<double>(d.n);
  const double k = static_cast<double>(d.k);
  return element * (m * k + k * n + m * n);
}

// FP32 time over FP16 time of one GEMM: what AMP gives it.
double ampRatio(const DeviceSpec& spec, const GemmDims& d) {
  const auto fp32 = estimateMatrixTime(spec, MathPrecision::kFp32Simt, d, flops(d), bytes(d, 4), 1);
  const auto fp16 = estimateMatrixTime(spec, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 1);
  EXPECT_TRUE(fp32 && fp16);
  return fp32->ns / fp16->ns;
}

TEST(OpTimeModelTest, ALargeAlignedGemmGainsNearlyThePeakRatio) {
  for (const char* name : {"V100 SXM2", "A100 SXM", "H100 SXM"}) {
    const DeviceSpec& spec = device(name);
    const double peak_ratio = spec.fp16_tflops / spec.fp32_tflops;
    const double ratio = ampRatio(spec, gemm(8192, 8192, 8192));
    EXPECT_GT(ratio, 0.8 * peak_ratio) << name;
    EXPECT_LE(ratio, peak_ratio) << name;
    // And it runs close to the Tensor Cores' peak: large, aligned, many waves.
    const GemmDims d = gemm(8192, 8192, 8192);
    const auto fp16 = estimateMatrixTime(spec, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 1);
    EXPECT_GT(fp16->efficiency, 0.7) << name;
    EXPECT_LE(fp16->efficiency, 1.0) << name;
    EXPECT_EQ(fp16->bound, RooflineBound::kCompute) << name;
  }
}

// NVIDIA's guideline: when a GEMM dimension is 128 or smaller, the FP16 speedup is nearer 2x than
// the 8x peak ratio. Such a GEMM moves few FLOPs per byte: in FP16 it is bound by memory, so it
// gains what its bytes allow over the FP32 kernel (about 4x for a dimension of 64 on a V100, whose
// FP32 ridge point is 17 FLOP/byte; 2x once FP32 is memory-bound too, at 32 or less).
TEST(OpTimeModelTest, AGemmWithASmallDimensionGainsNearerTwoThanThePeakRatio) {
  const DeviceSpec& v100 = device("V100 SXM2");
  for (const GemmDims& d : {gemm(64, 4096, 4096), gemm(4096, 64, 4096), gemm(64, 1024, 1024)}) {
    const double ratio = ampRatio(v100, d);
    EXPECT_GT(ratio, 1.4) << d.m << "x" << d.n << "x" << d.k;
    EXPECT_LT(ratio, 5.0) << d.m << "x" << d.n << "x" << d.k;  // nearer 2 than 8
  }
  for (const GemmDims& d : {gemm(64, 4096, 4096), gemm(4096, 64, 4096)}) {
    const auto fp16 = estimateMatrixTime(v100, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 1);
    EXPECT_EQ(fp16->bound, RooflineBound::kMemory) << d.m << "x" << d.n << "x" << d.k;
  }
  for (const GemmDims& d : {gemm(16, 8192, 8192), gemm(8192, 16, 8192)}) {
    EXPECT_NEAR(ampRatio(v100, d), 2.0, 0.3) << d.m << "x" << d.n << "x" << d.k;
  }
}

TEST(OpTimeModelTest, ATinyGemmIsBoundByTheKernelsFixedCost) {
  const DeviceSpec& a100 = device("A100 SXM");
  const GemmDims d = gemm(64, 64, 64);
  const auto fp16 = estimateMatrixTime(a100, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 1);
  ASSERT_TRUE(fp16);
  EXPECT_EQ(fp16->bound, RooflineBound::kLatency);
  EXPECT_DOUBLE_EQ(fp16->ns, timeModelConstants().kernel_floor_ns);
  // Far from the 16x peak ratio: the FP16 kernel costs its floor.
  EXPECT_LT(ampRatio(a100, d), 4.0);
}

TEST(OpTimeModelTest, DimensionsOffTheMultipleCostTensorCoreTime) {
  const DeviceSpec& a100 = device("A100 SXM");
  const GemmDims odd = gemm(4096, 4095, 4095);
  const GemmDims even = gemm(4096, 4096, 4096);
  const auto slow = estimateMatrixTime(a100, MathPrecision::kFp16, odd, flops(odd), bytes(odd, 2), 1);
  const auto fast = estimateMatrixTime(a100, MathPrecision::kFp16, even, flops(even), bytes(even, 2), 1);
  ASSERT_TRUE(slow && fast);
  EXPECT_GT(slow->ns, 1.5 * fast->ns);
  // FP32 on CUDA cores has no Tensor Core alignment to miss.
  const auto simt_odd = estimateMatrixTime(a100, MathPrecision::kFp32Simt, odd, flops(odd), bytes(odd, 4), 1);
  const auto simt_even = estimateMatrixTime(a100, MathPrecision::kFp32Simt, even, flops(even), bytes(even, 4), 1);
  EXPECT_NEAR(simt_odd->ns / simt_even->ns, 1.0, 0.02);
}

TEST(OpTimeModelTest, OnlyLeadingDimensionsOffTheMultipleCostTimeWhereTheLayoutIsKnown) {
  const DeviceSpec& h100 = device("H100 SXM");
  GemmDims tokens = gemm(4095, 4096, 4096);  // M: the tokens, rows of a row-major A
  const GemmDims even = gemm(4096, 4096, 4096);
  const auto time = [&](const GemmDims& d) {
    const auto t = estimateMatrixTime(h100, MathPrecision::kBf16, d, flops(d), bytes(d, 2), 1);
    EXPECT_TRUE(t.has_value());
    return t ? t->ns : 0.0;
  };
  // Layout unknown: M may be a leading dimension, and the narrow kernels are assumed.
  EXPECT_GT(time(tokens), 2.0 * time(even));
  // Known to lead nowhere: only the tile it leaves part-empty costs.
  tokens.leading = LeadingDims{false, true, true};
  EXPECT_NEAR(time(tokens) / time(even), 1.0, 0.05);
  // Known to lead (a transposed A): the narrow kernels again.
  tokens.leading = LeadingDims{true, true, false};
  EXPECT_GT(time(tokens), 2.0 * time(even));
}

// An align2 kernel loads its k-tiles 4 bytes at a time where an aligned one loads 16: its steps
// over K take the longer, and a tiny GEMM with a dimension off the multiple costs more than the
// kernel floor its aligned twin costs (on an H100: 3.2 us for 32 x 10 x 128 in BF16, measured in
// tests/data/h100/small_mlp_bf16.json.gz, against 2.0-2.4 us for aligned GEMMs of its size).
TEST(OpTimeModelTest, ATinyGemmOffTheMultipleTakesLongerThanItsAlignedTwin) {
  const DeviceSpec& h100 = device("H100 SXM");
  const auto time = [&](std::int64_t n) {
    GemmDims d = gemm(32, n, 128);
    d.leading = LeadingDims{false, true, true};  // N leads: the rows of B and of the result
    const auto t = estimateMatrixTime(h100, MathPrecision::kBf16, d, flops(d), bytes(d, 2), 1);
    EXPECT_TRUE(t.has_value());
    return t ? t->ns : 0.0;
  };
  EXPECT_DOUBLE_EQ(time(16), timeModelConstants().kernel_floor_ns);
  EXPECT_GT(time(10), 1.4 * time(16));
}

// Split-K reduces its partial tiles in a pass of its own: a second kernel (cuBLAS's
// splitKreduce_kernel, counted among the call's kernels) or, in one kernel, the last block of
// each tile waiting for the others' partials. Either way the GEMM costs the same.
TEST(OpTimeModelTest, ASplitKGemmPaysForItsReductionInOneKernelAsInTwo) {
  const DeviceSpec& a100 = device("A100 SXM");
  const GemmDims d = gemm(128, 128, 65536);  // one output tile, a long K: split
  const auto one = estimateMatrixTime(a100, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 1);
  const auto two = estimateMatrixTime(a100, MathPrecision::kFp16, d, flops(d), bytes(d, 2), 2);
  ASSERT_TRUE(one && two);
  EXPECT_GT(one->ns, 2 * timeModelConstants().kernel_floor_ns);  // above both floors
  EXPECT_NEAR(one->ns, two->ns, 1.0);
}

TEST(OpTimeModelTest, WaveQuantisationShowsAsTileWaste) {
  const DeviceSpec& a100 = device("A100 SXM");  // 108 SMs
  // 109 tiles of 128x128 need a second, almost empty wave; 108 do not.
  const GemmDims one_wave = gemm(128 * 108, 128, 8192);
  const GemmDims spill = gemm(128 * 109, 128, 8192);
  const auto a = estimateMatrixTime(a100, MathPrecision::kFp16, one_wave, flops(one_wave), bytes(one_wave, 2), 1);
  const auto b = estimateMatrixTime(a100, MathPrecision::kFp16, spill, flops(spill), bytes(spill, 2), 1);
  ASSERT_TRUE(a && b);
  EXPECT_LT(a->tile_waste, b->tile_waste);
}

TEST(OpTimeModelTest, MemoryBoundWorkHalvesWithItsBytesAboveTheFixedCost) {
  const DeviceSpec& h100 = device("H100 SXM");
  const double big = 1e9;  // 1 GB in FP32
  const double fp32 = estimateMemoryTime(h100, big, 1).ns;
  const double half = estimateMemoryTime(h100, big / 2, 1).ns;
  EXPECT_NEAR(fp32 / half, 2.0, 0.01);
  EXPECT_NEAR(fp32, big / (h100.memory_gbs * 1e9 * timeModelConstants().bandwidth_efficiency) * 1e9 +
                        timeModelConstants().kernel_ramp_ns, 1.0);
  // A small tensor's kernel costs its fixed time in either precision.
  EXPECT_DOUBLE_EQ(estimateMemoryTime(h100, 4096, 1).ns, estimateMemoryTime(h100, 2048, 1).ns);
}

TEST(OpTimeModelTest, NoUnitForThePrecisionMeansNoEstimate) {
  const DeviceSpec& v100 = device("V100 SXM2");  // no TF32, no BF16 Tensor Cores
  const GemmDims d = gemm(1024, 1024, 1024);
  EXPECT_FALSE(estimateMatrixTime(v100, MathPrecision::kTf32, d, flops(d), bytes(d, 4), 1));
  EXPECT_FALSE(estimateMatrixTime(v100, MathPrecision::kBf16, d, flops(d), bytes(d, 2), 1));
}

TEST(OpTimeModelTest, RooflineBoundFollowsTheRidgePoint) {
  const DeviceSpec& a100 = device("A100 SXM");
  const double ridge = a100.fp16_tflops * 1e12 / (a100.memory_gbs * 1e9);
  EXPECT_EQ(roofBound(a100, MathPrecision::kFp16, ridge * 2), RooflineBound::kCompute);
  EXPECT_EQ(roofBound(a100, MathPrecision::kFp16, ridge / 2), RooflineBound::kMemory);
  EXPECT_EQ(roofBound(a100, MathPrecision::kUnknown, 100), RooflineBound::kUnknown);
}

}  // namespace
}  // namespace ampscope::analyzer
