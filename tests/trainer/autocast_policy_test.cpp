#include "trainer/amp/mixed_precision.h"

#include <gtest/gtest.h>

namespace ampscope::trainer {
namespace {

TEST(AutocastPolicyTest, MatrixOpsRunInLowPrecisionReductionsAndLossesInFp32) {
  const AutocastPolicy policy;
  EXPECT_EQ(policy.computeType("linear", DType::kFp16, DType::kFp32), DType::kFp16);
  EXPECT_EQ(policy.computeType("conv2d", DType::kBf16, DType::kFp32), DType::kBf16);
  EXPECT_EQ(policy.computeType("softmax_cross_entropy", DType::kFp16, DType::kFp16), DType::kFp32);
  EXPECT_EQ(policy.computeType("layer_norm", DType::kFp16, DType::kFp16), DType::kFp32);
  EXPECT_EQ(policy.computeType("sum", DType::kBf16, DType::kBf16), DType::kFp32);
}

TEST(AutocastPolicyTest, OtherOpsFollowTheirInputs) {
  const AutocastPolicy policy;
  EXPECT_EQ(policy.listOf("relu"), CastList::kFollowInputs);
  EXPECT_EQ(policy.computeType("relu", DType::kFp16, DType::kFp16), DType::kFp16);
  EXPECT_EQ(policy.computeType("relu", DType::kFp16, DType::kFp32), DType::kFp32);
}

TEST(AutocastPolicyTest, BatchNormRunsInItsInputsTypeAsTorchAutocastDoes) {
  const AutocastPolicy policy;
  EXPECT_EQ(policy.listOf("batch_norm"), CastList::kFollowInputs);
  EXPECT_EQ(policy.computeType("batch_norm", DType::kFp16, DType::kFp16), DType::kFp16);
}

TEST(AutocastPolicyTest, AutocastOffLeavesEveryOpInItsInputType) {
  const AutocastPolicy policy;
  EXPECT_EQ(policy.computeType("linear", DType::kFp32, DType::kFp32), DType::kFp32);
}

TEST(AutocastPolicyTest, UserListsOverrideTheDefaults) {
  AutocastPolicy policy;
  policy.deny("linear");
  EXPECT_EQ(policy.computeType("linear", DType::kFp16, DType::kFp32), DType::kFp32);
  policy.allow("gelu");
  EXPECT_EQ(policy.computeType("gelu", DType::kBf16, DType::kFp32), DType::kBf16);
  policy.allow("linear");
  EXPECT_EQ(policy.listOf("linear"), CastList::kAllow);
}

}  // namespace
}  // namespace ampscope::trainer
