#include "trainer/engine/training_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <new>

#include <fmt/format.h>

#include "trainer/instrumentation/range_marker.h"
#include "trainer/instrumentation/trainer_ranges.h"

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
  explicit Phase(RunPhase phase)
      : which(phase), name(runPhaseRangeText(phase)), text(RangeMarker::registerText(name)) {}
  RunPhase which;
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

// Opens a phase's range, tells the tracker the run is in it and the counter what to count it as.
class PhaseScope {
 public:
  PhaseScope(OpTracker& ops, CountingBackend& counter, const Phase& phase) : range_(phase.text) {
    ops.enterPhase(phase.name);
    counter.setPhase(phase.which);
  }

 private:
  ScopedRange range_;
};

void addDemand(StepDemandSummary& sum, const StepRecord& record) {
  // Running means, so that a long run's sums stay exact enough.
  ++sum.steps;
  const double weight = 1.0 / static_cast<double>(sum.steps);
  sum.host_reads_per_step += (static_cast<double>(record.demand.host_reads) - sum.host_reads_per_step) * weight;
  sum.host_ms_per_step += (static_cast<double>(record.host_queue_ns) * 1e-6 - sum.host_ms_per_step) * weight;
  for (std::size_t i = 0; i < sum.launches_per_step.size(); ++i) {
    sum.launches_per_step[i] += (static_cast<double>(record.demand.launches[i]) - sum.launches_per_step[i]) * weight;
  }
  if (record.step_ns >= 0) {
    ++sum.timed_whole_steps;
    sum.device_step_ms +=
        (static_cast<double>(record.step_ns) * 1e-6 - sum.device_step_ms) / static_cast<double>(sum.timed_whole_steps);
  }
  if (std::any_of(record.phase_ns.begin(), record.phase_ns.end(), [](std::int64_t ns) { return ns < 0; })) return;
  ++sum.timed_steps;
  const double timed_weight = 1.0 / static_cast<double>(sum.timed_steps);
  for (std::size_t i = 0; i < sum.device_ms_per_step.size(); ++i) {
    sum.device_ms_per_step[i] += (static_cast<double>(record.phase_ns[i]) * 1e-6 - sum.device_ms_per_step[i]) * timed_weight;
  }
}

// Where the step points are marked: the step's start, and the end of each phase in RunPhase order.
constexpr std::int32_t kStepStartPoint = 0;
static_assert(static_cast<int>(RunPhase::kOptimizer) + 1 == kStepPhases, "a step's phases are the first RunPhases");
std::int32_t endOfPhasePoint(RunPhase phase) { return static_cast<std::int32_t>(phase) + 1; }

// Keeps the first count images of a dataset (quick runs on part of the training set).
void keepFirst(Dataset& data, std::int64_t count) {
  const std::size_t image_size = static_cast<std::size_t>(data.channels * data.height * data.width);
  data.images.resize(static_cast<std::size_t>(count) * image_size);
  data.labels.resize(static_cast<std::size_t>(count));
  data.count = count;
}

}  // namespace

double StepDemandSummary::totalLaunchesPerStep() const {
  double total = 0;
  for (double launches : launches_per_step) total += launches;
  return total;
}

TrainingRun::TrainingRun(Backend& backend, TrainConfig config, Dataset train, Dataset test)
    : backend_(backend),
      config_(std::move(config)),
      plan_(planFor(config_.precision)),
      train_(std::move(train)),
      test_(std::move(test)) {
  for (const std::string& op : config_.autocast_allow) policy_.allow(op);
  for (const std::string& op : config_.autocast_deny) policy_.deny(op);
}

Tensor TrainingRun::toDevice(const std::vector<float>& values, const Shape& shape, DType dtype) {
  Tensor t = backend_.allocate(shape, dtype);
  backend_.upload(values, t);
  return t;
}

void TrainingRun::uploadImages(const std::vector<float>& nchw, Tensor& images) {
  const MemoryLayout layout = inputLayout(config_.model);
  if (layout == MemoryLayout::kChannelsFirst || images.dim(1) == 1) {
    backend_.upload(nchw, images);  // already laid out as the model takes them (one channel: both)
    return;
  }
  backend_.upload(imagesLaidOut(nchw, images.shape(), layout), images);
}

Result<TrainSummary> TrainingRun::run(const StepCallback& on_step) {
  on_step_ = &on_step;
  // The trainer's entry point: nothing thrown below it (BackendError from the backends, bad_alloc,
  // a data worker's failure) goes further.
  std::string failure;
  try {
    return runStages();
  } catch (const std::bad_alloc& error) {
    failure = failureText(fmt::format("out of host memory ({})", error.what()));
  } catch (const std::exception& error) {
    failure = failureText(error.what());
  } catch (...) {
    failure = failureText("an exception of unknown type");
  }
  // The steps trained before the failure are handed on if the device can still say what they
  // were; on a GPU whose context the failure broke it cannot, and the message above stands alone.
  try {
    if (stage_ == Stage::kTraining || stage_ == Stage::kFinishing) readLog();
  } catch (...) {
  }
  return Error{failure};
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

Result<TrainSummary> TrainingRun::runStages() {
  stage_ = Stage::kSetup;
  backend_.setTf32(plan_.tf32);
  auto model = buildModel(backend_, config_.model, plan_.parameters);
  if (!model) return model.error();
  model_ = std::move(*model);
  model_->initialize(backend_, config_.seed);
  ranges_ = std::make_unique<LayerRanges>(policy_, plan_.autocast);
  ops_.forwardTo(ranges_.get());
  optimizer_ = std::make_unique<Optimizer>(backend_, config_.optimizer, model_->parameters(), plan_.master_weights);
  config_.log_every = std::max<std::int64_t>(1, config_.log_every);
  config_.numerics_every = std::max<std::int64_t>(1, config_.numerics_every);
  // A log read takes the steps since the last one: log_every of them, or as many as fit in
  // kLogBytes of row losses and kMaxLogSlots slots (each slot holds a step's six timing events on
  // a GPU), the log being read early when it is full.
  constexpr std::int64_t kLogBytes = std::int64_t{64} << 20;
  constexpr std::int64_t kMaxLogSlots = 1024;
  const std::int64_t rows = std::max<std::int64_t>(1, config_.data.batch_size);
  const std::int64_t slots = std::clamp<std::int64_t>(kLogBytes / (rows * static_cast<std::int64_t>(sizeof(float))),
                                                      1, std::min(config_.log_every, kMaxLogSlots));
  const StepStateLayout layout{static_cast<std::int32_t>(slots), static_cast<std::int32_t>(rows)};
  step_state_ = backend_.allocateStepState(layout, initialScalerState(scalerConfigFor(config_), layout.slots));
  last_read_ = initialScalerState(scalerConfigFor(config_), layout.slots);
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
    if (auto status = trainEpoch(epoch, pipeline); !status) return status.error();
    if (config_.max_steps > 0 && step_ >= config_.max_steps) break;
  }
  stage_ = Stage::kFinishing;
  ops_.enterPhase("");
  if (!readLog()) return Error{"train: stopped"};
  backend_.synchronize();
  const auto finished = std::chrono::steady_clock::now();
  const bool after_first = first_step_done_ && step_ > 1;
  const double seconds = std::chrono::duration<double>(finished - (after_first ? *first_step_done_ : started)).count();
  const std::int64_t timed_steps = after_first ? step_ - 1 : step_;
  summary_.steps = step_;
  summary_.skipped_steps = last_read_.skipped_steps;
  summary_.final_loss_scale = last_read_.scale;
  summary_.images_per_second = seconds > 0 ? static_cast<double>(timed_steps * data.batch_size) / seconds : 0.0;
  if (gradient_values_ > 0) {
    summary_.zero_gradient_share = static_cast<double>(zero_values_) / static_cast<double>(gradient_values_);
    summary_.fp16_underflow_share = static_cast<double>(underflow_values_) / static_cast<double>(gradient_values_);
  }
  summary_.test_accuracy = evaluate();
  return summary_;
}

Status TrainingRun::trainEpoch(std::int64_t epoch, BatchPipeline& pipeline) {
  ops_.enterPhase(phases().data.name);
  backend_.setPhase(RunPhase::kData);
  pipeline.startEpoch(epoch);
  total_steps_ = config_.max_steps > 0 ? config_.max_steps : pipeline.batchesPerEpoch() * config_.epochs;
  // The pipeline says how many batches an epoch has, so no step range is opened for the epoch's
  // end: a profile has exactly as many step ranges as steps were trained.
  for (std::int64_t b = 0; b < pipeline.batchesPerEpoch() && (config_.max_steps == 0 || step_ < config_.max_steps); ++b) {
    const ScopedRange step_range(stepRangeText(step_));
    std::optional<Batch> batch;
    {
      const PhaseScope phase(ops_, backend_, phases().data);
      batch = pipeline.next();
    }
    if (!batch) return Error{fmt::format("train: the data pipeline ended epoch {} after {} of its {} batches",
                                         epoch, b, pipeline.batchesPerEpoch())};
    scheduleLearningRate(total_steps_);
    trainStep(*batch, epoch);
    if (stopped_) return Error{"train: stopped"};
  }
  return {};
}

void TrainingRun::scheduleLearningRate(std::int64_t total_steps) {
  if (!config_.cosine_schedule || total_steps <= 0) return;
  const double progress = static_cast<double>(step_) / static_cast<double>(total_steps);
  constexpr double kPi = 3.14159265358979323846;
  optimizer_->setLearningRate(static_cast<float>(config_.optimizer.lr * 0.5 * (1.0 + std::cos(kPi * progress))));
}

void TrainingRun::trainStep(const Batch& batch, std::int64_t epoch) {
  const DeviceDemand before = backend_.counted();
  const auto queue_started = std::chrono::steady_clock::now();
  PendingStep pending;
  pending.record.step = step_;
  pending.record.epoch = epoch;
  pending.slot = static_cast<std::int32_t>(step_ % step_state_.layout.slots);
  const bool take_histograms = config_.gradient_histograms && step_ % config_.numerics_every == 0;
  pending.record.read_log = step_ % config_.log_every == 0 || step_ + 1 >= total_steps_ ||
                            static_cast<std::int64_t>(pending_.size()) + 1 >= step_state_.layout.slots;

  const auto mark = [&](RunPhase phase) { backend_.markStepPoint(step_state_, pending.slot, endOfPhasePoint(phase)); };
  backend_.markStepPoint(step_state_, pending.slot, kStepStartPoint);
  // The batch into the step's inputs, which stay in place from step to step (a replayed graph
  // reads them there); a batch of another size gets inputs of its own.
  const Shape image_shape = {batch.size, train_.channels, train_.height, train_.width};
  const bool full_batch = batch.size == config_.data.batch_size;
  if (full_batch && !input_images_.defined()) {
    input_images_ = backend_.allocate(image_shape, plan_.input);
    input_labels_ = backend_.allocate({batch.size}, DType::kFp32);
  }
  const Tensor images = full_batch ? input_images_ : backend_.allocate(image_shape, plan_.input);
  const Tensor labels = full_batch ? input_labels_ : backend_.allocate({batch.size}, DType::kFp32);
  {
    Tensor images_in = images, labels_in = labels;
    uploadImages(batch.images, images_in);
    backend_.upload(batch.labels, labels_in);
  }
  backend_.setLearningRate(step_state_, optimizer_->learningRate());
  mark(RunPhase::kData);

  const bool replayable = config_.cuda_graph && graph_failure_.empty() && !take_histograms && full_batch &&
                          step_ >= kGraphWarmupSteps;
  if (replayable) {
    const bool capturing = !graph_;
    if (capturing) captureGraph(images, labels);
    if (graph_) {
      // The whole step as one launch; the points inside it are not marked (they would be the
      // capture's), so its data phase and the whole step are timed, not the phases between.
      backend_.setPhase(RunPhase::kForward);
      backend_.noteGraphLaunch();
      graph_->replay();
      mark(RunPhase::kOptimizer);
      ++summary_.graph_replays;
      pending.record.replayed_graph = !capturing;  // the capturing step counts its ops as well
    }
  }
  if (!graph_ || !replayable) deviceStep(images, labels, mark, take_histograms ? &pending.record.gradients : nullptr);
  pending.record.host_queue_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - queue_started).count();
  const bool read = pending.record.read_log;
  pending_.push_back(std::move(pending));
  ++step_;
  std::optional<StepLogRead> log;
  if (read) log = readPending();
  // The step's record carries what it asked, its log read included.
  pending_.back().record.demand = backend_.counted() - before;
  if (log) stopped_ = !handOn(*log);
  if (step_ == 1) first_step_done_ = std::chrono::steady_clock::now();
}

void TrainingRun::deviceStep(const Tensor& images, const Tensor& labels, const std::function<void(RunPhase)>& mark,
                             std::vector<LayerGradients>* histograms) {
  LayerContext ctx{backend_, policy_, plan_.autocast, true, &casts_};
  Tensor dlogits;
  {
    const PhaseScope phase(ops_, backend_, phases().forward);
    casts_.refreshValues(backend_);  // autocast's casts of the weights the last step updated
    const Tensor logits = model_->forward(ctx, images, &ops_);
    ops_.enterPhase("loss");
    // The loss is on autocast's FP32 list: logits are cast up, and its gradient cast back down.
    const Tensor logits32 = castTensor(backend_, logits, DType::kFp32);
    Tensor dlogits32 = backend_.allocate(logits32.shape(), DType::kFp32);
    backend_.softmaxCrossEntropy(logits32, labels, step_state_, dlogits32);
    dlogits = castTensor(backend_, dlogits32, logits.dtype());
    mark(RunPhase::kForward);
  }
  {
    const PhaseScope phase(ops_, backend_, phases().backward);
    model_->backward(ctx, dlogits, &ops_);
    dlogits = Tensor();
    mark(RunPhase::kBackward);
  }
  {
    const PhaseScope phase(ops_, backend_, phases().loss_scale);
    casts_.castGradients(backend_);  // the layers' low-precision gradients into the parameters'
    const std::span<Tensor* const> grads = optimizer_->prepareGradients();
    backend_.unscaleGradients(grads, step_state_);
    // Of the unscaled gradients, before clipping, at the scale the loss was multiplied by.
    if (histograms != nullptr) *histograms = gradientHistograms(grads);
    mark(RunPhase::kLossScale);
  }
  {
    // Masked on the device when the step is skipped; the scaler's update ends the step.
    const PhaseScope phase(ops_, backend_, phases().optimizer);
    optimizer_->clipGradients(step_state_);
    optimizer_->step(step_state_);
    backend_.finishStep(step_state_);
    mark(RunPhase::kOptimizer);
  }
}

void TrainingRun::captureGraph(const Tensor& images, const Tensor& labels) {
  try {
    graph_ = backend_.captureStep([&] { deviceStep(images, labels, [](RunPhase) {}, nullptr); });
    summary_.graph_captured_at_step = step_;
  } catch (const std::exception& error) {
    // The step runs as before; the run says why it was not captured. What the layers kept of
    // the broken-off capture goes now, before the step allocates anew.
    model_->releaseSaved();
    graph_.reset();
    graph_failure_ = error.what();
    summary_.graph_note = fmt::format("not captured at step {}: {}", step_, error.what());
  }
}

StepLogRead TrainingRun::readPending() {
  return backend_.readStepLog(step_state_, pending_.front().slot, static_cast<std::int32_t>(pending_.size()));
}

bool TrainingRun::readLog() { return pending_.empty() || handOn(readPending()); }

bool TrainingRun::handOn(const StepLogRead& log) {
  last_read_ = log.scaler;
  std::vector<PendingStep> steps = std::move(pending_);
  pending_.clear();
  bool go_on = true;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    StepRecord& record = steps[i].record;
    const StepLogEntry& entry = log.entries[i];
    // Summed in row order and in double, the same on every backend.
    double loss_sum = 0.0;
    for (float loss : log.row_losses[i]) loss_sum += loss;
    const double rows = entry.rows > 0 ? static_cast<double>(entry.rows) : 1.0;
    record.loss = loss_sum / rows;
    record.batch_accuracy = static_cast<double>(entry.correct) / rows;
    record.loss_scale = entry.loss_scale;
    record.skipped = entry.skipped != 0;
    record.gradient_norm = record.skipped ? 0.0 : std::sqrt(entry.gradient_norm_squared);
    record.phase_ns = log.phase_ns[i];
    record.step_ns = log.step_ns[i];
    summary_.final_loss = record.loss;
    countDemand(record);
    if (go_on && *on_step_ && !(*on_step_)(record, total_steps_)) go_on = false;
  }
  return go_on;
}

void TrainingRun::countDemand(const StepRecord& record) {
  // The first step pays for plans, handles and the allocator's growth: it is no one's steady step.
  if (record.step == 0) return;
  // With --cuda-graph, the steady steps are those that replayed the graph.
  const bool steady = !record.read_log && record.gradients.empty() && (!config_.cuda_graph || record.replayed_graph);
  addDemand(steady ? summary_.demand.steady : summary_.demand.reading, record);
}

std::vector<LayerGradients> TrainingRun::gradientHistograms(std::span<Tensor* const> grads) {
  const std::vector<Parameter*> params = model_->parameters();
  const std::vector<GradientHistogram> histograms =
      backend_.gradientHistograms(std::span<const Tensor* const>(grads.data(), grads.size()), step_state_);
  std::vector<LayerGradients> out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const GradientHistogram& h = histograms[i];
    gradient_values_ += h.count;
    zero_values_ += h.zeros;
    underflow_values_ += h.underflow_at_scale;
    out.push_back({params[i]->name, h});
  }
  return out;
}

double TrainingRun::evaluate() {
  const ScopedRange range(phases().evaluate.text);
  // Evaluation has no layer ranges; the tracker still names a failing layer.
  stage_ = Stage::kEvaluation;
  backend_.setPhase(RunPhase::kEvaluate);
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
    Tensor x = backend_.allocate({batch->size, test_.channels, test_.height, test_.width}, plan_.input);
    uploadImages(batch->images, x);
    const Tensor labels = toDevice(batch->labels, {batch->size}, DType::kFp32);
    const Tensor logits = castTensor(backend_, model_->forward(ctx, x, &ops_), DType::kFp32);
    correct += backend_.countCorrect(logits, labels);
    seen += batch->size;
  }
  return seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
}

}  // namespace ampscope::trainer
