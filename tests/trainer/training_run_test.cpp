#include "trainer/engine/training_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "trainer/backend/backend_decorator.h"

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

TEST(TrainingRunTest, SteadyStepsBetweenLogReadsNeverWaitForTheDevice) {
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.log_every = 5;
  config.numerics_every = 10;
  const RunResult r = train(config);
  ASSERT_EQ(r.steps.size(), 64u);
  for (const StepRecord& step : r.steps) {
    const bool reads = step.step % 5 == 0 || step.step == 63;
    EXPECT_EQ(step.read_log, reads) << "step " << step.step;
    if (reads || step.step % 10 == 0) {
      EXPECT_GE(step.demand.host_reads, 1) << "step " << step.step;
    } else {
      EXPECT_EQ(step.demand.host_reads, 0) << "step " << step.step;
    }
    EXPECT_EQ(step.gradients.empty(), step.step % 10 != 0) << "step " << step.step;
  }
  EXPECT_EQ(r.summary.demand.steady.host_reads_per_step, 0.0);
  // Every phase of every step timed (the CPU's ops run as they are called: the host's clock).
  for (const StepRecord& step : r.steps) {
    for (std::int64_t ns : step.phase_ns) EXPECT_GE(ns, 0) << "step " << step.step;
    EXPECT_GT(step.phase_ns[1], 0) << "forward of step " << step.step;
  }
  EXPECT_EQ(r.summary.demand.steady.timed_steps, r.summary.demand.steady.steps);
  EXPECT_GT(r.summary.demand.steady.device_ms_per_step[1], 0.0);
  EXPECT_GT(r.summary.demand.steady.steps, 40);
  EXPECT_GE(r.summary.demand.reading.host_reads_per_step, 1.0);
}

TEST(TrainingRunTest, AFullLogIsReadEarlyAndNoStepIsLost) {
  // The log holds at most 1024 steps: with --log-every 5000 it is read when full.
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.model.hidden = {};
  config.data.batch_size = 4;
  config.epochs = 10;
  config.max_steps = 1100;
  config.log_every = 5000;
  const RunResult r = train(config);
  ASSERT_EQ(r.steps.size(), 1100u);
  std::vector<std::int64_t> reads;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    EXPECT_EQ(r.steps[i].step, static_cast<std::int64_t>(i));
    if (r.steps[i].read_log) reads.push_back(r.steps[i].step);
  }
  EXPECT_EQ(reads, (std::vector<std::int64_t>{0, 1024, 1099}));
}

TEST(TrainingRunTest, TheOptimizerLaunchesAsManyTimesForTwoParameterTensorsAsForEight) {
  // One linear layer (weight and bias), then four: in fp16-master mode, with its master copies.
  std::array<DeviceDemand, 2> demand;
  const std::array<std::vector<std::int64_t>, 2> hidden = {std::vector<std::int64_t>{},
                                                           std::vector<std::int64_t>{32, 32, 32}};
  for (std::size_t i = 0; i < 2; ++i) {
    for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdamW}) {
      TrainConfig config = smallRun(PrecisionMode::kFp16Master);
      config.model.hidden = hidden[i];
      config.optimizer.kind = kind;
      config.optimizer.clip_grad_norm = 1.0f;
      config.max_steps = 4;
      const RunResult r = train(config);
      ASSERT_EQ(r.steps.size(), 4u);
      demand[i] = r.steps[2].demand;
    }
  }
  const auto launches = [](const DeviceDemand& d, RunPhase phase) { return d.launches[static_cast<std::size_t>(phase)]; };
  EXPECT_EQ(launches(demand[0], RunPhase::kOptimizer), launches(demand[1], RunPhase::kOptimizer));
  EXPECT_EQ(launches(demand[0], RunPhase::kLossScale), launches(demand[1], RunPhase::kLossScale));
  EXPECT_GT(launches(demand[0], RunPhase::kOptimizer), 0);
  // The layers' own work does grow with the layers: the count sees it.
  EXPECT_GT(launches(demand[1], RunPhase::kForward), launches(demand[0], RunPhase::kForward));
}

TEST(TrainingRunTest, AutocastCastsEveryWeightAndGradientInOneLaunchEachWhateverTheLayers) {
  // A step's launches beyond the layers' own work: what amp-fp16 adds to fp32's step. With the
  // casts kept and refreshed in one op, it is the same for one linear layer as for four.
  const auto steadyLaunches = [](PrecisionMode mode, std::vector<std::int64_t> hidden) {
    TrainConfig config = smallRun(mode);
    config.model.hidden = std::move(hidden);
    config.max_steps = 4;
    const RunResult r = train(config);
    return r.steps.size() == 4 ? r.steps[2].demand.totalLaunches() : -1;
  };
  const std::int64_t amp_added_one = steadyLaunches(PrecisionMode::kAmpFp16, {}) - steadyLaunches(PrecisionMode::kFp32, {});
  const std::int64_t amp_added_four =
      steadyLaunches(PrecisionMode::kAmpFp16, {32, 32, 32}) - steadyLaunches(PrecisionMode::kFp32, {32, 32, 32});
  EXPECT_GT(amp_added_one, 0);
  EXPECT_EQ(amp_added_one, amp_added_four);
}

TEST(TrainingRunTest, StepsReplayedFromACaptureRecordWhatTheStepsRunOneByOneRecord) {
  // The CPU's stand-in for a CUDA graph has a graph's semantics (nothing runs while capturing;
  // a replay queues the same ops on the same tensors, reading the scale, the slot and the
  // learning rate from the step state): every figure must be the same, bit for bit.
  for (PrecisionMode mode : {PrecisionMode::kAmpFp16, PrecisionMode::kFp16Master, PrecisionMode::kFp32}) {
    TrainConfig config = smallRun(mode);
    config.model.hidden = {32, 16};
    config.model.layer_norm = mode == PrecisionMode::kAmpFp16;  // its statistics are the step's too
    config.optimizer.kind = mode == PrecisionMode::kFp32 ? OptimizerKind::kAdamW : OptimizerKind::kSgd;
    config.optimizer.clip_grad_norm = 0.5f;
    config.loss_scaling.initial_scale = 16777216.0;  // skips and backoff while replaying
    config.loss_scaling.growth_interval = 5;
    config.log_every = 7;
    config.numerics_every = 25;
    const RunResult eager = train(config);
    config.cuda_graph = true;
    const RunResult replayed = train(config);
    const std::string what = precisionModeName(mode);
    EXPECT_EQ(replayed.summary.graph_captured_at_step, kGraphWarmupSteps) << what;
    EXPECT_GT(replayed.summary.graph_replays, 50) << what;
    EXPECT_TRUE(replayed.summary.graph_note.empty()) << replayed.summary.graph_note;
    ASSERT_EQ(eager.steps.size(), replayed.steps.size()) << what;
    for (std::size_t i = 0; i < eager.steps.size(); ++i) {
      EXPECT_EQ(eager.steps[i].loss, replayed.steps[i].loss) << what << " step " << i;
      EXPECT_EQ(eager.steps[i].loss_scale, replayed.steps[i].loss_scale) << what << " step " << i;
      EXPECT_EQ(eager.steps[i].skipped, replayed.steps[i].skipped) << what << " step " << i;
      EXPECT_EQ(eager.steps[i].gradient_norm, replayed.steps[i].gradient_norm) << what << " step " << i;
      EXPECT_EQ(eager.steps[i].gradients.size(), replayed.steps[i].gradients.size()) << what << " step " << i;
    }
    EXPECT_EQ(eager.summary.test_accuracy, replayed.summary.test_accuracy) << what;
    EXPECT_EQ(eager.summary.skipped_steps, replayed.summary.skipped_steps) << what;
    if (mode != PrecisionMode::kFp32) {
      // Skipped steps after the capture too: the replayed update is masked on the device.
      EXPECT_TRUE(std::any_of(replayed.steps.begin() + kGraphWarmupSteps + 1, replayed.steps.end(),
                              [](const StepRecord& step) { return step.skipped; }))
          << what;
    }
    // A replayed step queues its inputs, its learning rate and one launch.
    EXPECT_EQ(replayed.summary.demand.steady.totalLaunchesPerStep(), 4.0) << what;
    // It is timed as a whole and in its data phase, never in the phases inside the graph (no
    // stale point of an earlier step in its slot either).
    for (const StepRecord& step : replayed.steps) {
      if (!step.replayed_graph) continue;
      EXPECT_GE(step.step_ns, 0) << what << " step " << step.step;
      EXPECT_GE(step.phase_ns[0], 0) << what << " step " << step.step;
      for (std::size_t phase = 1; phase < step.phase_ns.size(); ++phase) {
        EXPECT_EQ(step.phase_ns[phase], -1) << what << " step " << step.step << " phase " << phase;
      }
    }
    EXPECT_EQ(replayed.summary.demand.steady.timed_whole_steps, replayed.summary.demand.steady.steps) << what;
    EXPECT_EQ(replayed.summary.demand.steady.timed_steps, 0) << what;
  }
}

TEST(TrainingRunTest, AStepThatCannotBeCapturedRunsAsBeforeAndTheRunSaysWhy) {
  // The MLP's step runs six GEMMs: the 13th is the first of step 2, the one captured.
  TrainConfig config = smallRun(PrecisionMode::kAmpFp16);
  config.cuda_graph = true;
  FaultInjectingBackend backend(makeCpuBackend(), *parseFaultPlan("gemm:13"));
  TrainingRun run(backend, config, makeSyntheticDataset(256, 1), makeSyntheticDataset(64, 2));
  const auto summary = run.run();
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->graph_captured_at_step, -1);
  EXPECT_EQ(summary->graph_replays, 0);
  EXPECT_EQ(summary->graph_note, "not captured at step 2: fault injection: gemm call 13 failed as planned");
  EXPECT_EQ(summary->steps, 2 * 256 / 32);
}

// A run whose backend fails the planned call: the error, and how many steps finished before it.
struct FailedRun {
  std::string message;
  std::int64_t steps_done = 0;
};

FailedRun trainWithFault(const TrainConfig& config, const std::string& plan_text) {
  auto plan = parseFaultPlan(plan_text);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  FaultInjectingBackend backend(makeCpuBackend(), *plan);
  TrainingRun run(backend, config, makeSyntheticDataset(256, 1), makeSyntheticDataset(64, 2));
  FailedRun out;
  const auto result = run.run([&](const StepRecord&, std::int64_t) {
    ++out.steps_done;
    return true;
  });
  EXPECT_FALSE(result.ok()) << "the run finished although " << plan_text << " should have failed";
  if (!result.ok()) out.message = result.error().message;
  return out;
}

// The MLP of smallRun is flatten, fc1, act1, fc2: a step runs six GEMMs, fc1's and fc2's forward,
// then fc2's and fc1's backward with two each (input gradient, weight gradient).
TEST(TrainingRunTest, BackendFailureInALayerNamesTheStepTheLayerOpAndTheMessage) {
  const FailedRun r = trainWithFault(smallRun(PrecisionMode::kFp32), "gemm:13");
  EXPECT_EQ(r.message, "step 2, fc1 linear forward: fault injection: gemm call 13 failed as planned");
  EXPECT_EQ(r.steps_done, 2);
}

TEST(TrainingRunTest, BackendFailureInABackwardPassNamesTheLayersBackward) {
  const FailedRun r = trainWithFault(smallRun(PrecisionMode::kAmpFp16), "gemm:16");
  EXPECT_EQ(r.message, "step 2, fc2 linear backward: fault injection: gemm call 16 failed as planned");
}

TEST(TrainingRunTest, BackendFailureBetweenLayersNamesThePhase) {
  EXPECT_EQ(trainWithFault(smallRun(PrecisionMode::kFp32), "softmaxCrossEntropy:4").message,
            "step 3, loss: fault injection: softmaxCrossEntropy call 4 failed as planned");
  // One SGD update over all four parameters per step.
  EXPECT_EQ(trainWithFault(smallRun(PrecisionMode::kFp32), "sgdStep:2").message,
            "step 1, optimizer: fault injection: sgdStep call 2 failed as planned");
  EXPECT_EQ(trainWithFault(smallRun(PrecisionMode::kAmpFp16), "unscaleGradients:1").message,
            "step 0, loss_scale: fault injection: unscaleGradients call 1 failed as planned");
}

TEST(TrainingRunTest, BackendFailureBeforeOrAfterTheStepsNamesSetupOrEvaluation) {
  const FailedRun setup = trainWithFault(smallRun(PrecisionMode::kFp32), "allocate:1");
  EXPECT_EQ(setup.message, "setup: fault injection: allocate call 1 failed as planned");
  EXPECT_EQ(setup.steps_done, 0);
  const FailedRun evaluation = trainWithFault(smallRun(PrecisionMode::kFp32), "countCorrect:1");
  EXPECT_EQ(evaluation.message, "evaluation: fault injection: countCorrect call 1 failed as planned");
  EXPECT_EQ(evaluation.steps_done, 2 * 256 / 32);
}

TEST(TrainingRunTest, BackendFailureInAConvolutionNamesTheConvLayer) {
  TrainConfig config = smallRun(PrecisionMode::kAmpBf16);
  config.model.kind = "cnn";
  config.model.channels = {4};
  config.model.fc = 16;
  // One convolution layer: one filter gradient per step.
  EXPECT_EQ(trainWithFault(config, "convBackwardFilter:3").message,
            "step 2, conv1 conv2d backward: fault injection: convBackwardFilter call 3 failed as planned");
}

}  // namespace
}  // namespace ampscope::trainer
