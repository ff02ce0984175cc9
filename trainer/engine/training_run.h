#pragma once
// One training run: builds the model for the precision mode, feeds it batches from the pipeline,
// applies autocast, loss scaling and the optimizer step by step, records per-step figures (loss,
// loss scale, skipped steps, per-layer gradient histograms) and ends with the test accuracy.
// Every step, phase and layer op is an NVTX range (trainer/instrumentation).

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainer/amp/autocast_policy.h"
#include "trainer/amp/loss_scaler.h"
#include "trainer/amp/precision_mode.h"
#include "trainer/data/batch_pipeline.h"
#include "trainer/data/dataset.h"
#include "trainer/engine/op_tracker.h"
#include "trainer/model/model_builder.h"
#include "trainer/optim/optimizer.h"

namespace ampscope::trainer {

struct TrainConfig {
  ModelSpec model;
  PrecisionMode precision = PrecisionMode::kFp32;
  LossScalerConfig loss_scaling;  // mode defaults to the precision mode's (see planFor)
  bool loss_scaling_set = false;  // true when the user chose the loss scaling
  OptimizerConfig optimizer;
  PipelineConfig data;            // batch size, workers, augmentation, seed
  std::int64_t epochs = 1;
  std::int64_t max_steps = 0;     // 0: run the epochs in full
  std::int64_t train_limit = 0;   // 0: the whole training set; else its first N images
  std::uint64_t seed = 0;
  std::vector<std::string> autocast_allow;  // extra ops for autocast's lists
  std::vector<std::string> autocast_deny;
  bool gradient_histograms = true;
  bool cosine_schedule = true;  // the learning rate decays to 0 along half a cosine over the run
};

struct LayerGradients {
  std::string layer;  // the parameter's name, "fc1.weight"
  GradientHistogram histogram;
};

struct StepRecord {
  std::int64_t step = 0;   // from 0, over the whole run
  std::int64_t epoch = 0;
  double loss = 0.0;
  double batch_accuracy = 0.0;
  double loss_scale = 1.0;  // the scale this step's loss was multiplied by
  bool skipped = false;     // Inf/NaN gradients: the update was not applied
  double gradient_norm = 0.0;
  std::vector<LayerGradients> gradients;  // empty unless histograms are on
};

struct TrainSummary {
  std::string device;
  std::string precision;
  std::string model;
  std::int64_t steps = 0;
  std::int64_t skipped_steps = 0;
  double final_loss = 0.0;
  double final_loss_scale = 1.0;
  double test_accuracy = 0.0;
  // Training steps after the first (which pays for cuDNN's plan choice, library handles and the
  // allocator's growth), to the end of the last one's GPU work; all steps when only one ran.
  double images_per_second = 0.0;
  // Over all steps' gradients: the share of values that are exactly zero, and the share that would
  // round to zero in FP16 at the step's loss scale.
  double zero_gradient_share = 0.0;
  double fp16_underflow_share = 0.0;
};

// Called after every step; a sink may stop the run by returning false.
// How many of the available training images a run uses: all, or the first train_limit of them.
std::int64_t trainingImagesUsed(const TrainConfig& config, std::int64_t available);

using StepCallback = std::function<bool(const StepRecord&, std::int64_t steps_total)>;

class TrainingRun {
 public:
  TrainingRun(Backend& backend, TrainConfig config, Dataset train, Dataset test);
  // Never throws: a failed backend op (BackendError: CUDA, cuBLAS, cuDNN, memory), or anything
  // else thrown on the way, ends the run with an Error that names where it stopped, the layer op
  // and the failure: "step 12, fc1 linear forward: cuBLAS: CUBLAS_STATUS_ALLOC_FAILED (...) in
  // cublasGemmStridedBatchedEx at cuda_gemm.cpp:45". Steps count from 0, as the profile's step
  // ranges do (docs/errors.md).
  Result<TrainSummary> run(const StepCallback& on_step = {});

 private:
  // What the run is doing, for a failure's message.
  enum class Stage { kSetup, kTraining, kFinishing, kEvaluation };

  Result<TrainSummary> runStages(const StepCallback& on_step);
  std::string failureText(std::string_view failure) const;
  Status trainEpoch(std::int64_t epoch, BatchPipeline& pipeline, const StepCallback& on_step);
  void scheduleLearningRate(std::int64_t total_steps);
  StepRecord trainStep(const Batch& batch, std::int64_t epoch);
  double evaluate();
  Tensor toDevice(const std::vector<float>& values, const Shape& shape, DType dtype);

  Backend& backend_;
  TrainConfig config_;
  PrecisionPlan plan_;
  Dataset train_;
  Dataset test_;
  AutocastPolicy policy_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<LayerObserver> ranges_;  // the NVTX ranges of the layers
  OpTracker ops_;                          // the layer op or phase under way; passes on to ranges_
  Stage stage_ = Stage::kSetup;
  LossScaler scaler_;
  TrainSummary summary_;
  std::int64_t step_ = 0;
  // When the first step's host work ended. Each step reads its loss back, so what it leaves queued
  // on the GPU is less than a step.
  std::optional<std::chrono::steady_clock::time_point> first_step_done_;
  std::uint64_t gradient_values_ = 0, zero_values_ = 0, underflow_values_ = 0;
};

}  // namespace ampscope::trainer
