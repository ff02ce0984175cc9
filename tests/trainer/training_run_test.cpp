#include "trainer/engine/training_run.h"

#include <gtest/gtest.h>

namespace ampscope::trainer {
namespace {

TrainConfig smallRun(PrecisionMode precision) {
  TrainConfig c;
  c.model.hidden = {32};
  c.precision = precision;
  c.data.batch_size = 32;
  c.data.augment = false;
  c.epochs = 2;
  c.seed = 7;
  return c;
}

struct RunResult {
  TrainSummary summary;
  std::vector<StepRecord> steps;
};

RunResult train(const TrainConfig& config, std::int64_t images = 1024) {
  auto backend = makeCpuBackend();
  TrainingRun run(*backend, config, makeSyntheticDataset(images, 1), makeSyntheticDataset(256, 2));
  RunResult out;
  auto summary = run.run([&](const StepRecord& r, std::int64_t) {
    out.steps.push_back(r);
    return true;
  });
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (summary.ok()) out.summary = *summary;
  return out;
}

TEST(TrainingRunTest, MlpLearnsTheSyntheticClasses) {
  const RunResult r = train(smallRun(PrecisionMode::kFp32));
  EXPECT_EQ(r.summary.steps, 2 * 1024 / 32);
  EXPECT_GT(r.summary.test_accuracy, 0.9);
  EXPECT_LT(r.steps.back().loss, r.steps.front().loss);
}

TEST(TrainingRunTest, SameSeedGivesTheSameRunWhateverTheWorkerCount) {
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.data.augment = true;
  const RunResult a = train(config);
  config.data.workers = 3;
  const RunResult b = train(config);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) EXPECT_EQ(a.steps[i].loss, b.steps[i].loss) << "step " << i;
  EXPECT_EQ(a.summary.test_accuracy, b.summary.test_accuracy);
}

TEST(TrainingRunTest, DynamicScalingSkipsOverflowingStepsAndBacksOff) {
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.loss_scaling.initial_scale = 16777216.0;  // 2^24: scaled gradients overflow FP16 (max 65504)
  const RunResult r = train(config);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_TRUE(r.steps.front().skipped);
  EXPECT_GT(r.summary.skipped_steps, 0);
  EXPECT_LT(r.summary.final_loss_scale, 16777216.0);
  EXPECT_GT(r.summary.test_accuracy, 0.9);  // once the scale fits, training proceeds
}

TEST(TrainingRunTest, WithoutLossScalingNothingIsSkipped) {
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.loss_scaling_set = true;
  config.loss_scaling.mode = LossScaling::kNone;
  const RunResult r = train(config);
  EXPECT_EQ(r.summary.skipped_steps, 0);
  EXPECT_EQ(r.summary.final_loss_scale, 1.0);
}

TEST(TrainingRunTest, EveryModeTrainsTheSmallModel) {
  for (PrecisionMode mode : {PrecisionMode::kTf32, PrecisionMode::kAmpBf16, PrecisionMode::kFp16Master}) {
    const RunResult r = train(smallRun(mode));
    EXPECT_GT(r.summary.test_accuracy, 0.9) << precisionModeName(mode);
    EXPECT_EQ(r.summary.precision, precisionModeName(mode));
  }
}

TEST(TrainingRunTest, StepsRecordPerLayerGradientHistograms) {
  const RunResult r = train(smallRun(PrecisionMode::kFp32));
  ASSERT_FALSE(r.steps.empty());
  const StepRecord& step = r.steps.front();
  ASSERT_EQ(step.gradients.size(), 4u);  // fc1 and fc2, weight and bias
  EXPECT_EQ(step.gradients[0].layer, "fc1.weight");
  EXPECT_EQ(step.gradients[0].histogram.count, 32u * 784u);
}

TEST(TrainingRunTest, CnnTrainsWithBatchNormInAmp) {
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.model.kind = "cnn";
  config.model.channels = {4, 8};
  config.model.fc = 16;
  const RunResult r = train(config, 512);
  EXPECT_GT(r.summary.test_accuracy, 0.8);
}

TEST(TrainingRunTest, BadModelSizesAreRefusedWithTheOption) {
  TrainConfig config = smallRun(PrecisionMode::kFp32);
  config.model.hidden = {0};
  auto backend = makeCpuBackend();
  TrainingRun run(*backend, config, makeSyntheticDataset(64, 1), makeSyntheticDataset(64, 2));
  const auto result = run.run();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("--hidden"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::trainer
