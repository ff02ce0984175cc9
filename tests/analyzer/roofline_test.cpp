// Tests of analyzer/model/roofline.h: which op call shapes a roofline places and which roofs it
// draws, chosen once for report.html and the GUI.

#include "analyzer/model/roofline.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

OpRow placed(MathPrecision precision, OpClass op_class = OpClass::kMatrix) {
  OpRow row;
  row.op = "aten::mm";
  row.op_class = op_class;
  row.precision = precision;
  row.achieved_tflops = 1.0;
  row.intensity = 10.0;
  return row;
}

OpPerformance opsOn(const char* device, std::vector<OpRow> rows) {
  OpPerformance ops;
  ops.device.spec = rowSpec(findDevice(device));
  ops.rows = std::move(rows);
  return ops;
}

TEST(RooflineTest, Fp32MathOnCudaCoresGetsItsRoofAndTheTf32AndAmpRoofsItCouldMoveTo) {
  const Roofline r = rooflineOf(opsOn("A100 SXM", {placed(MathPrecision::kFp32Simt)}), false);
  EXPECT_DOUBLE_EQ(r.memory_gbs, 2039.0);
  EXPECT_EQ(r.ran_in, std::vector<MathPrecision>{MathPrecision::kFp32Simt});
  ASSERT_EQ(r.roofs.size(), 3u);
  EXPECT_DOUBLE_EQ(r.roofs[0].tflops, 19.5);
  EXPECT_EQ(r.roofs[0].precisions, std::vector<MathPrecision>{MathPrecision::kFp32Simt});
  EXPECT_EQ(r.roofs[0].source, RoofSource::kRan);
  EXPECT_DOUBLE_EQ(r.roofs[1].tflops, 156.0);
  EXPECT_EQ(r.roofs[1].precisions, std::vector<MathPrecision>{MathPrecision::kTf32});
  EXPECT_EQ(r.roofs[1].source, RoofSource::kTf32);
  // FP16 and BF16 share the A100's peak: one roof, in MathPrecision order.
  EXPECT_DOUBLE_EQ(r.roofs[2].tflops, 312.0);
  EXPECT_EQ(r.roofs[2].precisions, (std::vector<MathPrecision>{MathPrecision::kFp16, MathPrecision::kBf16}));
  EXPECT_EQ(r.roofs[2].source, RoofSource::kAmp);
}

TEST(RooflineTest, HalfPrecisionMathGetsOnlyTheRoofsOfWhatRan) {
  // Already in FP16: no AMP roof, and no FP32 or TF32 roof that no op runs at.
  Roofline r = rooflineOf(opsOn("A100 SXM", {placed(MathPrecision::kFp16)}), false);
  ASSERT_EQ(r.roofs.size(), 1u);
  EXPECT_EQ(r.roofs[0].precisions, std::vector<MathPrecision>{MathPrecision::kFp16});
  EXPECT_EQ(r.roofs[0].source, RoofSource::kRan);
  // FP32 memory-bound work beside it is no FP32 matrix math: no TF32 roof.
  r = rooflineOf(opsOn("A100 SXM", {placed(MathPrecision::kFp16), placed(MathPrecision::kFp32Simt, OpClass::kMemory)}),
                 false);
  ASSERT_EQ(r.roofs.size(), 2u);
  EXPECT_EQ(r.roofs[0].precisions, std::vector<MathPrecision>{MathPrecision::kFp32Simt});
  EXPECT_EQ(r.roofs[1].precisions, std::vector<MathPrecision>{MathPrecision::kFp16});
}

TEST(RooflineTest, ARoofARanPrecisionSharesIsDrawnAsRan) {
  // TF32 ran: its roof is the ops', not allow_tf32's.
  const Roofline r = rooflineOf(
      opsOn("A100 SXM", {placed(MathPrecision::kTf32), placed(MathPrecision::kFp32Simt), placed(MathPrecision::kBf16)}),
      false);
  ASSERT_EQ(r.roofs.size(), 3u);
  EXPECT_EQ(r.roofs[1].precisions, std::vector<MathPrecision>{MathPrecision::kTf32});
  EXPECT_EQ(r.roofs[1].source, RoofSource::kRan);
  EXPECT_EQ(r.roofs[2].precisions, std::vector<MathPrecision>{MathPrecision::kBf16});
  EXPECT_EQ(r.roofs[2].source, RoofSource::kRan);
}

TEST(RooflineTest, AV100HasNoTf32OrBf16Roofs) {
  const Roofline r = rooflineOf(opsOn("V100 SXM2", {placed(MathPrecision::kFp32Simt)}), false);
  ASSERT_EQ(r.roofs.size(), 2u);
  EXPECT_EQ(r.roofs[0].precisions, std::vector<MathPrecision>{MathPrecision::kFp32Simt});
  EXPECT_EQ(r.roofs[1].precisions, std::vector<MathPrecision>{MathPrecision::kFp16});
  EXPECT_EQ(r.roofs[1].source, RoofSource::kAmp);
}

TEST(RooflineTest, NothingIsDrawnWithoutAPlacedOpADeviceOrAGpu) {
  OpRow no_rate = placed(MathPrecision::kFp32Simt);
  no_rate.achieved_tflops.reset();
  EXPECT_FALSE(onRoofline(no_rate));
  OpRow no_intensity = placed(MathPrecision::kFp32Simt);
  no_intensity.intensity = 0.0;
  EXPECT_FALSE(onRoofline(no_intensity));
  EXPECT_TRUE(rooflineOf(opsOn("A100 SXM", {no_rate, no_intensity}), false).roofs.empty());
  EXPECT_TRUE(rooflineOf(opsOn("A100 SXM", {placed(MathPrecision::kFp16)}), true).roofs.empty());  // a CPU run
  OpPerformance unknown_device = opsOn("A100 SXM", {placed(MathPrecision::kFp16)});
  unknown_device.device.spec.reset();
  EXPECT_TRUE(rooflineOf(unknown_device, false).roofs.empty());
  // An op whose precision is unknown is placed, and draws no roof of its own.
  const Roofline r = rooflineOf(opsOn("A100 SXM", {placed(MathPrecision::kUnknown)}), false);
  EXPECT_EQ(r.ran_in, std::vector<MathPrecision>{MathPrecision::kUnknown});
  ASSERT_EQ(r.roofs.size(), 1u);
  EXPECT_EQ(r.roofs[0].source, RoofSource::kAmp);
}

}  // namespace
}  // namespace ampscope::analyzer
