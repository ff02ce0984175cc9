// The words every view writes for a Tensor Core verdict (reports/verdict_words.h) and for the
// roofline's roofs (reports/roofline_style.h).

#include <gtest/gtest.h>

#include "reports/roofline_style.h"
#include "reports/verdict_words.h"

namespace ampscope::reports {
namespace {

using analyzer::MathPrecision;
using analyzer::TensorCoreUse;

TEST(ViewWordsTest, EachVerdictHasOneCellWordAndOnlyYesAndNoAreFlags) {
  EXPECT_EQ(tensorCoreCell(TensorCoreUse::kYes), "yes");
  EXPECT_EQ(tensorCoreCell(TensorCoreUse::kNo), "no");
  EXPECT_EQ(tensorCoreCell(TensorCoreUse::kUnknown), "unknown");
  EXPECT_EQ(tensorCoreCell(TensorCoreUse::kHost), "host");
  EXPECT_EQ(tensorCoreFlag(TensorCoreUse::kYes), std::optional<bool>(true));
  EXPECT_EQ(tensorCoreFlag(TensorCoreUse::kNo), std::optional<bool>(false));
  EXPECT_EQ(tensorCoreFlag(TensorCoreUse::kUnknown), std::nullopt);
  EXPECT_EQ(tensorCoreFlag(TensorCoreUse::kHost), std::nullopt);
}

TEST(ViewWordsTest, TheTextSummarysShortColumnNamesTheTensorCorePrecision) {
  analyzer::TensorCoreVerdict v;
  v.precision = MathPrecision::kBf16;
  v.tensor_core = TensorCoreUse::kYes;
  EXPECT_EQ(tensorCoreBrief(v), "TC BF16");
  v.tensor_core = TensorCoreUse::kUnknown;
  EXPECT_EQ(tensorCoreBrief(v), "TC?");
  v.tensor_core = TensorCoreUse::kHost;
  EXPECT_EQ(tensorCoreBrief(v), "host");
  v.tensor_core = TensorCoreUse::kNo;
  EXPECT_EQ(tensorCoreBrief(v), "");
}

TEST(ViewWordsTest, ARoofIsNamedByItsPrecisionsAndTheProjectionThatWouldMoveMathThere) {
  analyzer::Roofline roofline;
  roofline.roofs = {{.tflops = 19.5, .precisions = {MathPrecision::kFp32Simt}, .source = analyzer::RoofSource::kRan},
                    {.tflops = 156, .precisions = {MathPrecision::kTf32}, .source = analyzer::RoofSource::kTf32},
                    {.tflops = 312, .precisions = {MathPrecision::kFp16, MathPrecision::kBf16},
                     .source = analyzer::RoofSource::kAmp}};
  EXPECT_EQ(roofLabel(roofline.roofs[0]), "FP32-SIMT");
  EXPECT_EQ(roofLabel(roofline.roofs[1]), "TF32 (allow_tf32)");
  EXPECT_EQ(roofLabel(roofline.roofs[2]), "FP16/BF16 (AMP)");
  EXPECT_STREQ(roofColor(roofline.roofs[2]), precisionColor(MathPrecision::kFp16));
  EXPECT_STREQ(precisionColor(MathPrecision::kFp32Simt), precisionColor(MathPrecision::kFp32));
  EXPECT_EQ(projectedRoofsText(roofline),
            ", and TF32 Tensor Cores, where allow_tf32 would take the FP32 matrix math, and FP16/BF16 Tensor Cores, "
            "where AMP would take the eligible math");
  roofline.roofs.resize(1);
  EXPECT_EQ(projectedRoofsText(roofline), "");
}

}  // namespace
}  // namespace ampscope::reports
