#include "trainer/engine/training_run.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <new>

#include <fmt/format.h>

#include "trainer/instrumentation/layer_ranges.h"
#include "trainer/instrumentation/range_marker.h"
#include "trainer/instrumentation/run_range_texts.h"

namespace ampscope::trainer {

namespace {

LossScalerConfig scalerConfigFor(const TrainConfig& config) {
  LossScalerConfig out = config.loss_scaling;
  if (!config.loss_scaling_set) out.mode = planFor(config.precision).default_loss_scaling;
  return out;
}

// A phase of a step: its name, which is its range's text (docs/trainer_ranges.md) and names it in
// a failure's message, and the range's handle, registered once.
struct Phase {
  explicit Phase(RunPhase phase) : name(runPhaseRangeText(phase)), text(RangeMarker::registerText(name)) {}
  const char* name;
  RangeMarker::Handle text;
};

struct Phases {
  Phase data{RunPhase::kData};
  Phase forward{RunPhase::kForward};
  Phase backward{RunPhase::kBackward};
  Phase loss_scale{RunPhase::kLossScale};
  Phase optimizer{RunPhase::kOptimizer};
  Phase evaluate{RunPhase::kEvaluate};
};

const Phases& phases() {
  static const Phases all;
  return all;
}

// Opens a phase's range and tells the tracker the run is in it.
class PhaseScope {
 public:
  PhaseScope(OpTracker& ops, const Phase& phase) : range_(phase.text) { ops.enterPhase(phase.name); }

 private:
  ScopedRange range_;
};

// Keeps the first count images of a dataset (quick runs on part of the training set).
void keepFirst(Dataset& data, std::int64_t count) {
  const std::size_t image_size = static_cast<std::size_t>(data.channels * data.height * data.width);
  data.images.resize(static_cast<std::size_t>(count) * image_size);
  data.labels.resize(static_cast<std::size_t>(count));
  data.count = count;
}

}  // namespace

TrainingRun::TrainingRun(Backend& backend, TrainConfig config, Dataset train, Dataset test)
    : backend_(backend),
      config_(std::move(config)),
      plan_(planFor(config_.precision)),
      train_(std::move(train)),
      test_(std::move(test)),
      scaler_(scalerConfigFor(config_)) {
  for (const std::string& op : config_.autocast_allow) policy_.allow(op);
  for (const std::string& op : config_.autocast_deny) policy_.deny(op);
}

Tensor TrainingRun::toDevice(const std::vector<float>& values, const Shape& shape, DType dtype) {
  Tensor t = backend_.allocate(shape, dtype);
  backend_.upload(values, t);
  return t;
}

Result<TrainSummary> TrainingRun::run(const StepCallback& on_step) {
  // The trainer's entry point: nothing thrown below it (BackendError from the backends, bad_alloc,
  // a data worker's failure) goes further.
  try {
    return runStages(on_step);
  } catch (const std::bad_alloc& error) {
    return Error{failureText(fmt::format("out of host memory ({})", error.what()))};
  } catch (const std::exception& error) {
    return Error{failureText(error.what())};
  } catch (...) {
    return Error{failureText("an exception of unknown type")};
  }
}

std::string TrainingRun::failureText(std::string_view failure) const {
  std::string where;
  switch (stage_) {
    case Stage::kSetup: where = "setup"; break;
    case Stage::kTraining: where = fmt::format("step {}", step_); break;
    // On a GPU, work queued by the last step may fail only when the run waits for it.
    case Stage::kFinishing: where = fmt::format("after step {}", step_ - 1); break;
    case Stage::kEvaluation: where = "evaluation"; break;
  }
  const std::string op = ops_.describe();
  return fmt::format("{}{}{}: {}", where, op.empty() ? "" : ", ", op, failure);
}

std::int64_t trainingImagesUsed(const TrainConfig& config, std::int64_t available) {
  return config.train_limit > 0 && config.train_limit < available ? config.train_limit : available;
}

Result<TrainSummary> TrainingRun::runStages(const StepCallback& on_step) {
  stage_ = Stage::kSetup;
  backend_.setTf32(plan_.tf32);
  auto model = buildModel(backend_, config_.model, plan_.parameters);
  if (!model) return model.error();
  model_ = std::move(*model);
  model_->initialize(backend_, config_.seed);
  ranges_ = std::make_unique<LayerRanges>(policy_, plan_.autocast);
  ops_.forwardTo(ranges_.get());
  optimizer_ = std::make_unique<Optimizer>(backend_, config_.optimizer, model_->parameters(), plan_.master_weights);
  summary_.device = backend_.description();
  summary_.precision = precisionModeName(config_.precision);
  summary_.model = describeModel(config_.model);

  if (const std::int64_t used = trainingImagesUsed(config_, train_.count); used < train_.count) keepFirst(train_, used);
  PipelineConfig data = config_.data;
  data.seed = config_.seed;
  // Each batch's decoding and augmentation is a range on the thread that does it.
  data.on_work = [](const char* what, std::int64_t batch, bool begin) {
    if (begin) {
      RangeMarker::push(dataWorkRangeText(what, batch));
    } else {
      RangeMarker::pop();
    }
  };
  if (auto valid = validatePipeline(train_, data); !valid) return valid.error();
  BatchPipeline pipeline(train_, data);
  if (pipeline.batchesPerEpoch() == 0) {
    return Error{fmt::format("train: {} training images make no batch of {}", train_.count, data.batch_size)};
  }
  const auto started = std::chrono::steady_clock::now();
  stage_ = Stage::kTraining;
  for (std::int64_t epoch = 0; epoch < config_.epochs; ++epoch) {
    if (auto status = trainEpoch(epoch, pipeline, on_step); !status) return status.error();
    if (config_.max_steps > 0 && step_ >= config_.max_steps) break;
  }
  stage_ = Stage::kFinishing;
  ops_.enterPhase("");
  backend_.synchronize();
  const auto finished = std::chrono::steady_clock::now();
  const bool after_first = first_step_done_ && step_ > 1;
  const double seconds = std::chrono::duration<double>(finished - (after_first ? *first_step_done_ : started)).count();
  const std::int64_t timed_steps = after_first ? step_ - 1 : step_;
  summary_.steps = step_;
  summary_.skipped_steps = scaler_.skippedSteps();
  summary_.final_loss_scale = scaler_.scale();
  summary_.images_per_second = seconds > 0 ? static_cast<double>(timed_steps * data.batch_size) / seconds : 0.0;
  if (gradient_values_ > 0) {
    summary_.zero_gradient_share = static_cast<double>(zero_values_) / static_cast<double>(gradient_values_);
    summary_.fp16_underflow_share = static_cast<double>(underflow_values_) / static_cast<double>(gradient_values_);
  }
  summary_.test_accuracy = evaluate();
  return summary_;
}

Status TrainingRun::trainEpoch(std::int64_t epoch, BatchPipeline& pipeline, const StepCallback& on_step) {
  ops_.enterPhase(phases().data.name);
  pipeline.startEpoch(epoch);
  const std::int64_t total = config_.max_steps > 0 ? config_.max_steps : pipeline.batchesPerEpoch() * config_.epochs;
  // The pipeline says how many batches an epoch has, so no step range is opened for the epoch's
  // end: a profile has exactly as many step ranges as steps were trained.
  for (std::int64_t b = 0; b < pipeline.batchesPerEpoch() && (config_.max_steps == 0 || step_ < config_.max_steps); ++b) {
    const ScopedRange step_range(stepRangeText(step_));
    std::optional<Batch> batch;
    {
      const PhaseScope phase(ops_, phases().data);
      batch = pipeline.next();
    }
    if (!batch) return Error{fmt::format("train: the data pipeline ended epoch {} after {} of its {} batches",
                                         epoch, b, pipeline.batchesPerEpoch())};
    scheduleLearningRate(total);
    const StepRecord record = trainStep(*batch, epoch);
    summary_.final_loss = record.loss;
    ++step_;
    if (step_ == 1) first_step_done_ = std::chrono::steady_clock::now();
    if (on_step && !on_step(record, total)) return Error{"train: stopped"};
  }
  return {};
}

void TrainingRun::scheduleLearningRate(std::int64_t total_steps) {
  if (!config_.cosine_schedule || total_steps <= 0) return;
  const double progress = static_cast<double>(step_) / static_cast<double>(total_steps);
  constexpr double kPi = 3.14159265358979323846;
  optimizer_->setLearningRate(static_cast<float>(config_.optimizer.lr * 0.5 * (1.0 + std::cos(kPi * progress))));
}

StepRecord TrainingRun::trainStep(const Batch& batch, std::int64_t epoch) {
  StepRecord record;
  record.step = step_;
  record.epoch = epoch;
  record.loss_scale = scaler_.scale();
  LayerContext ctx{backend_, policy_, plan_.autocast, true};
  const Shape image_shape = {batch.size, train_.channels, train_.height, train_.width};
  const Tensor x = toDevice(batch.images, image_shape, plan_.input);
  const Tensor labels = toDevice(batch.labels, {batch.size}, DType::kFp32);

  Tensor dlogits;
  {
    const PhaseScope phase(ops_, phases().forward);
    const Tensor logits = model_->forward(ctx, x, &ops_);
    ops_.enterPhase("loss");
    // The loss is on autocast's FP32 list: logits are cast up, and its gradient cast back down.
    const Tensor logits32 = castTensor(backend_, logits, DType::kFp32);
    Tensor dlogits32 = backend_.allocate(logits32.shape(), DType::kFp32);
    const Backend::LossResult loss =
        backend_.softmaxCrossEntropy(logits32, labels, static_cast<float>(scaler_.scale()), dlogits32);
    record.loss = loss.loss;
    record.batch_accuracy = static_cast<double>(loss.correct) / static_cast<double>(batch.size);
    dlogits = castTensor(backend_, dlogits32, logits.dtype());
  }
  {
    const PhaseScope phase(ops_, phases().backward);
    model_->backward(ctx, dlogits, &ops_);
  }
  bool apply = false;
  {
    const PhaseScope phase(ops_, phases().loss_scale);
    const std::vector<Tensor*> grads = optimizer_->prepareGradients();
    const bool found_non_finite = backend_.unscaleAndCheck(grads, static_cast<float>(scaler_.inverseScale()));
    if (config_.gradient_histograms) {
      const std::vector<Parameter*> params = model_->parameters();
      for (std::size_t i = 0; i < params.size(); ++i) {
        LayerGradients g{params[i]->name, backend_.gradientHistogram(*grads[i], static_cast<float>(record.loss_scale))};
        gradient_values_ += g.histogram.count;
        zero_values_ += g.histogram.zeros;
        underflow_values_ += g.histogram.underflow_at_scale;
        record.gradients.push_back(std::move(g));
      }
    }
    apply = scaler_.update(found_non_finite);
    record.skipped = !apply;
  }
  if (apply) {
    const PhaseScope phase(ops_, phases().optimizer);
    record.gradient_norm = optimizer_->clipGradients();
    optimizer_->step();
  }
  return record;
}

double TrainingRun::evaluate() {
  const ScopedRange range(phases().evaluate.text);
  // Evaluation has no layer ranges; the tracker still names a failing layer.
  stage_ = Stage::kEvaluation;
  ops_.forwardTo(nullptr);
  ops_.enterPhase("");
  PipelineConfig config;
  config.batch_size = 1000;
  config.shuffle = false;
  config.augment = false;
  config.drop_last = false;
  config.workers = 0;
  config.mean = config_.data.mean;
  config.std = config_.data.std;
  BatchPipeline pipeline(test_, config);
  pipeline.startEpoch(0);
  LayerContext ctx{backend_, policy_, plan_.autocast, false};
  std::int64_t correct = 0;
  std::int64_t seen = 0;
  while (std::optional<Batch> batch = pipeline.next()) {
    const Tensor x = toDevice(batch->images, {batch->size, test_.channels, test_.height, test_.width}, plan_.input);
    const Tensor labels = toDevice(batch->labels, {batch->size}, DType::kFp32);
    const Tensor logits = castTensor(backend_, model_->forward(ctx, x, &ops_), DType::kFp32);
    correct += backend_.countCorrect(logits, labels);
    seen += batch->size;
  }
  return seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
}

}  // namespace ampscope::trainer
