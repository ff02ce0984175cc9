#include "analyzer/model/fused_attention_cost.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

const DeviceSpec& h100() { return *findDevice("H100 SXM"); }

// The time model's efficiency for a K of E (its pipeline's fill and drain, K / (K + 64)) sets the
// rate: 0.8 x 0.5 of the peak at E = 64, 0.8 x 0.67 at E = 128 (docs/performance_model.md).
TEST(FusedAttentionCostTest, LongSequencesRunAtTheModelsRateForTheHeadSize) {
  const auto e64 = estimateFusedAttention(h100(), MathPrecision::kBf16, {2, 12, 4096, 4096, 64, 64});
  const auto e128 = estimateFusedAttention(h100(), MathPrecision::kBf16, {2, 12, 4096, 4096, 128, 128});
  ASSERT_TRUE(e64 && e128);
  EXPECT_NEAR(e64->efficiency, 0.40, 0.02);
  EXPECT_NEAR(e128->efficiency, 0.53, 0.03);
  // 4 B H S² E FLOPs at that rate, plus a kernel's fixed cost.
  const double flops = 4.0 * 24 * 4096.0 * 4096.0 * 64;
  EXPECT_NEAR(e64->forward_ns, flops / (e64->efficiency * 989.4e3) + 1000, 2000);
  // The backward's 2.5 times the FLOPs, in three kernels.
  EXPECT_GT(e64->backward_ns, 2.4 * e64->forward_ns);
  EXPECT_LT(e64->backward_ns, 2.6 * e64->forward_ns);
}

TEST(FusedAttentionCostTest, HeadsFoldedIntoTheBatchCostTheSame) {
  const auto separate = estimateFusedAttention(h100(), MathPrecision::kFp16, {2, 12, 1024, 1024, 64, 64});
  const auto folded = estimateFusedAttention(h100(), MathPrecision::kFp16, {24, 0, 1024, 1024, 64, 64});
  ASSERT_TRUE(separate && folded);
  EXPECT_DOUBLE_EQ(separate->forward_ns, folded->forward_ns);
  EXPECT_DOUBLE_EQ(separate->backward_ns, folded->backward_ns);
}

// An odd sequence length is a ragged last tile, not a misaligned GEMM's align1 loads.
TEST(FusedAttentionCostTest, AnOddSequenceLengthCostsOnlyItsRaggedTile) {
  const auto odd = estimateFusedAttention(h100(), MathPrecision::kBf16, {8, 12, 3137, 3137, 64, 64});
  const auto even = estimateFusedAttention(h100(), MathPrecision::kBf16, {8, 12, 3136, 3136, 64, 64});
  ASSERT_TRUE(odd && even);
  EXPECT_LT(odd->forward_ns, 1.1 * even->forward_ns);
}

// Below the smallest tile a fused kernel computes (64 x 64 queries x keys per head), the tile's
// work is paid whatever the length: 8 x 8 scores do 1/64 of a tile's useful work in its time.
TEST(FusedAttentionCostTest, ShortSequencesCostAWholeTile) {
  const auto s8 = estimateFusedAttention(h100(), MathPrecision::kBf16, {64, 12, 8, 8, 64, 64});
  const auto s64 = estimateFusedAttention(h100(), MathPrecision::kBf16, {64, 12, 64, 64, 64, 64});
  ASSERT_TRUE(s8 && s64);
  EXPECT_NEAR(s8->efficiency * 64, s64->efficiency, s64->efficiency * 0.01);
  EXPECT_FALSE(estimateFusedAttention(h100(), MathPrecision::kBf16, {0, 12, 64, 64, 64, 64}));
}

}  // namespace
}  // namespace ampscope::analyzer
