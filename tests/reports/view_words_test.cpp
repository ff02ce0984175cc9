// The words every view writes for a Tensor Core verdict (reports/verdict_words.h).

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ampscope::reports
