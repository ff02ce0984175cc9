// GradScaler's rules as both backends run them (trainer/numerics/step_state.h): what the end of a
// step does to the scale, the skip count and the log entry.
#include "trainer/amp/mixed_precision.h"

#include <gtest/gtest.h>

namespace ampscope::trainer {
namespace {

// Ends a step that found (or did not find) an Inf/NaN gradient; returns whether it was applied.
bool endStep(ScalerState& s, bool found_inf, StepLogEntry* entry = nullptr) {
  StepLogEntry scratch;
  s.found_inf = found_inf ? 1 : 0;
  math::finishStep(s, entry != nullptr ? *entry : scratch);
  return (entry != nullptr ? *entry : scratch).skipped == 0;
}

TEST(LossScalerTest, HalvesScaleAndSkipsStepOnOverflow) {
  ScalerState s = initialScalerState({}, 4);
  EXPECT_EQ(s.scale, 65536.0f);
  StepLogEntry entry;
  EXPECT_FALSE(endStep(s, true, &entry));
  EXPECT_EQ(entry.loss_scale, 65536.0f);  // the entry keeps the scale the step used
  EXPECT_EQ(s.scale, 32768.0f);
  EXPECT_EQ(s.skipped_steps, 1);
  EXPECT_EQ(s.found_inf, 0);  // cleared for the next step
  EXPECT_TRUE(endStep(s, false));
  EXPECT_EQ(s.scale, 32768.0f);
  EXPECT_EQ(s.applied_steps, 1);
}

TEST(LossScalerTest, DoublesScaleAfterGrowthIntervalCleanStepsInARow) {
  LossScalerConfig config;
  config.initial_scale = 1024;
  config.growth_interval = 3;
  ScalerState s = initialScalerState(config, 1);
  endStep(s, false);
  endStep(s, false);
  EXPECT_EQ(s.scale, 1024.0f);
  endStep(s, false);
  EXPECT_EQ(s.scale, 2048.0f);
  EXPECT_EQ(s.growth_tracker, 0);
  // An overflow resets the count of clean steps.
  endStep(s, false);
  endStep(s, false);
  endStep(s, true);
  EXPECT_EQ(s.scale, 1024.0f);
  endStep(s, false);
  endStep(s, false);
  EXPECT_EQ(s.scale, 1024.0f);
  endStep(s, false);
  EXPECT_EQ(s.scale, 2048.0f);
}

TEST(LossScalerTest, ConstantScaleSkipsOverflowingStepsButNeverChanges) {
  LossScalerConfig config;
  config.mode = LossScaling::kConstant;
  config.initial_scale = 128;
  config.growth_interval = 1;
  ScalerState s = initialScalerState(config, 1);
  EXPECT_FALSE(endStep(s, true));
  EXPECT_TRUE(endStep(s, false));
  EXPECT_EQ(s.scale, 128.0f);
}

TEST(LossScalerTest, WithoutScalingNothingIsScaledOrSkipped) {
  LossScalerConfig config;
  config.mode = LossScaling::kNone;
  ScalerState s = initialScalerState(config, 1);
  EXPECT_EQ(s.scale, 1.0f);
  EXPECT_TRUE(endStep(s, true));
  EXPECT_EQ(s.skipped_steps, 0);
}

TEST(LossScalerTest, EachStepMovesToTheNextSlotAndWrapsAround) {
  ScalerState s = initialScalerState({}, 3);
  for (int step = 0; step < 7; ++step) {
    EXPECT_EQ(s.slot, step % 3);
    endStep(s, false);
  }
}

TEST(LossScalerTest, ClippingBringsTheNormDownOnlyWhenItIsAbove) {
  EXPECT_EQ(math::clipFactor(4.0, 0.0f), 1.0f);   // off
  EXPECT_EQ(math::clipFactor(4.0, 3.0f), 1.0f);   // norm 2 is under 3
  EXPECT_FLOAT_EQ(math::clipFactor(16.0, 1.0f), static_cast<float>(1.0 / (4.0 + 1e-6)));
}

}  // namespace
}  // namespace ampscope::trainer
