#pragma once
// One training run: builds the model for the precision mode, feeds it batches from the pipeline,
// applies autocast, loss scaling and the optimizer step by step, records per-step figures (loss,
// loss scale, skipped steps, per-layer gradient histograms) and ends with the test accuracy.
// Every step, phase and layer op is an NVTX range (trainer/instrumentation).
//
// A steady step never waits for the device: the loss scale, the skip and the step's figures stay
// in device memory (trainer/numerics/step_state.h) and the host reads them every log_every steps,
// handing the steps' records on then, in order. Gradient histograms, which read back, are taken
// every numerics_every steps. The run counts what each step asks of the device
// (CountingBackend) and sums it up in TrainSummary::demand.

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trainer/amp/mixed_precision.h"
#include "trainer/data/batch_pipeline.h"
#include "trainer/data/dataset.h"
#include "trainer/engine/run_support.h"
#include "trainer/model/model.h"
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
  // The host reads the steps' figures at step 0, every log_every steps and at the last step.
  std::int64_t log_every = 10;
  // Gradient histograms at step 0 and every numerics_every steps (a host read each time). The
  // default keeps their cost near 1% of a step where they cost half a millisecond (docs/trainer.md).
  std::int64_t numerics_every = 50;
  bool cosine_schedule = true;  // the learning rate decays to 0 along half a cosine over the run
  // Capture a steady step after the warm-up steps (kGraphWarmupSteps) and replay it for every
  // step that neither takes histograms nor has a short batch: a CUDA graph on the GPU, a
  // recording of the backend's ops on the CPU (the same semantics, nothing to gain there).
  bool cuda_graph = false;
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
  std::vector<LayerGradients> gradients;  // empty but on the steps that take histograms
  DeviceDemand demand;                    // what this step asked of the device
  std::int64_t host_queue_ns = 0;         // the host's time queueing the step (its launch cost)
  bool replayed_graph = false;            // --cuda-graph: the step was the captured one, replayed
  // The device's time in each of the step's phases (data, forward, backward, loss_scale,
  // optimizer: the first RunPhases), ns; -1 where the backend could not say.
  std::array<std::int64_t, kStepPhases> phase_ns{-1, -1, -1, -1, -1};
  std::int64_t step_ns = -1;  // the device's time for the whole step (a replayed graph's too)
  bool read_log = false;                  // the host waited for the device at this step's end
};

// What the steps of one kind asked of the device, on average.
struct StepDemandSummary {
  std::int64_t steps = 0;
  double host_reads_per_step = 0.0;
  std::array<double, kRunPhases.size()> launches_per_step{};  // by RunPhase
  // Over the steps whose every phase was timed (timed_steps of them): the device's time in each.
  std::int64_t timed_steps = 0;
  std::array<double, kStepPhases> device_ms_per_step{};
  // Over the steps whose start and end were timed (timed_whole_steps): the device's time for one.
  std::int64_t timed_whole_steps = 0;
  double device_step_ms = 0.0;
  double host_ms_per_step = 0.0;  // the host's time queueing a step: what launching it costs
  double totalLaunchesPerStep() const;
};

struct RunDemand {
  // Steps after the first that neither read the log nor took histograms (with --cuda-graph: and
  // replayed the graph), and the others.
  StepDemandSummary steady;
  StepDemandSummary reading;
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
  RunDemand demand;
  // --cuda-graph: the step captured (-1: none), how many steps replayed it, and why none was.
  std::int64_t graph_captured_at_step = -1;
  std::int64_t graph_replays = 0;
  std::string graph_note;
};

// Steps run as they are before one is captured: the first pays for plans, handles and the
// allocator's growth, the second reaches the step's steady sizes of scratch.
inline constexpr std::int64_t kGraphWarmupSteps = 2;

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

  // A step trained whose figures are still in device memory.
  struct PendingStep {
    StepRecord record;  // all but what the log holds
    std::int32_t slot = 0;
  };

  Result<TrainSummary> runStages();
  std::string failureText(std::string_view failure) const;
  Status trainEpoch(std::int64_t epoch, BatchPipeline& pipeline);
  void scheduleLearningRate(std::int64_t total_steps);
  void trainStep(const Batch& batch, std::int64_t epoch);
  // What a step queues on the device after its inputs: forward, loss, backward, unscaling,
  // clipping, the update, the scaler's update. `mark` is told the end of each phase; histograms,
  // when given, receive the unscaled gradients' histograms (a read: never in a captured step).
  void deviceStep(const Tensor& images, const Tensor& labels, const std::function<void(RunPhase)>& mark,
                  std::vector<LayerGradients>* histograms);
  // Captures deviceStep as a graph (graph_), or notes why it could not be (graph_failure_).
  void captureGraph(const Tensor& images, const Tensor& labels);
  std::vector<LayerGradients> gradientHistograms(std::span<Tensor* const> grads);
  // The pending steps' figures, read from the device (a host read).
  StepLogRead readPending();
  // Completes the pending steps' records from what was read and hands them on in order; false
  // when the step callback stopped the run.
  bool handOn(const StepLogRead& log);
  // readPending and handOn, when a step is pending.
  bool readLog();
  void countDemand(const StepRecord& record);
  double evaluate();
  Tensor toDevice(const std::vector<float>& values, const Shape& shape, DType dtype);
  // A batch's images, given channels first, into `images` as the model's input layout wants them.
  void uploadImages(const std::vector<float>& nchw, Tensor& images);

  CountingBackend backend_;  // every op of the run goes through it
  TrainConfig config_;
  PrecisionPlan plan_;
  Dataset train_;
  Dataset test_;
  AutocastPolicy policy_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<LayerObserver> ranges_;  // the NVTX ranges of the layers
  Tensor input_images_, input_labels_;     // a full batch's inputs, in place from step to step
  std::unique_ptr<StepGraph> graph_;       // the captured steady step (--cuda-graph)
  std::string graph_failure_;              // why it could not be captured; then no more tries
  ParameterCasts casts_;                   // autocast's casts of the parameters, kept from step to step
  OpTracker ops_;                          // the layer op or phase under way; passes on to ranges_
  Stage stage_ = Stage::kSetup;
  StepStateMemory step_state_;
  ScalerState last_read_;                  // the scaler as the last log read found it
  std::vector<PendingStep> pending_;
  const StepCallback* on_step_ = nullptr;
  bool stopped_ = false;                   // the callback asked to stop
  TrainSummary summary_;
  std::int64_t step_ = 0;
  std::int64_t total_steps_ = 0;
  // When the first step's host work ended; it reads the log, so its GPU work had ended too.
  std::optional<std::chrono::steady_clock::time_point> first_step_done_;
  std::uint64_t gradient_values_ = 0, zero_values_ = 0, underflow_values_ = 0;
};

}  // namespace ampscope::trainer
