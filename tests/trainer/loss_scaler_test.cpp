#include "trainer/amp/loss_scaler.h"

#include <gtest/gtest.h>

namespace ampscope::trainer {
namespace {

TEST(LossScalerTest, HalvesScaleAndSkipsStepOnOverflow) {
  LossScaler scaler;
  EXPECT_DOUBLE_EQ(scaler.scale(), 65536.0);
  EXPECT_FALSE(scaler.update(true));
  EXPECT_DOUBLE_EQ(scaler.scale(), 32768.0);
  EXPECT_EQ(scaler.skippedSteps(), 1);
  EXPECT_TRUE(scaler.update(false));
  EXPECT_DOUBLE_EQ(scaler.scale(), 32768.0);
}

TEST(LossScalerTest, DoublesScaleAfterGrowthIntervalCleanStepsInARow) {
  LossScalerConfig config;
  config.initial_scale = 1024;
  config.growth_interval = 3;
  LossScaler scaler(config);
  scaler.update(false);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048);
  EXPECT_EQ(scaler.cleanStepsInARow(), 0);
  // An overflow resets the count of clean steps.
  scaler.update(false);
  scaler.update(false);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024);
  scaler.update(false);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024);
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048);
}

TEST(LossScalerTest, ConstantScaleSkipsOverflowingStepsButNeverChanges) {
  LossScalerConfig config;
  config.mode = LossScaling::kConstant;
  config.initial_scale = 128;
  config.growth_interval = 1;
  LossScaler scaler(config);
  EXPECT_FALSE(scaler.update(true));
  EXPECT_TRUE(scaler.update(false));
  EXPECT_DOUBLE_EQ(scaler.scale(), 128);
}

TEST(LossScalerTest, WithoutScalingNothingIsScaledOrSkipped) {
  LossScalerConfig config;
  config.mode = LossScaling::kNone;
  LossScaler scaler(config);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1.0);
  EXPECT_TRUE(scaler.update(true));
  EXPECT_EQ(scaler.skippedSteps(), 0);
}

}  // namespace
}  // namespace ampscope::trainer
