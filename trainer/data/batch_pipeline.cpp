#include "trainer/data/batch_pipeline.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "trainer/numerics/split_mix64.h"

namespace ampscope::trainer {

namespace {

// Purpose tags for deriveSeed: the shuffle and the augmentation draw from unrelated streams.
constexpr std::uint64_t kShuffleStream = 0x5348554646ULL;  // "SHUFF"
constexpr std::uint64_t kAugmentStream = 0x4155474dULL;    // "AUGM"

// Pairs on_work's begin and end, also when building throws.
class WorkRange {
 public:
  WorkRange(const PipelineConfig& config, std::int64_t batch) : config_(config), batch_(batch) {
    if (config_.on_work) config_.on_work(kBatchWork, batch_, true);
  }
  ~WorkRange() {
    if (config_.on_work) config_.on_work(kBatchWork, batch_, false);
  }
  WorkRange(const WorkRange&) = delete;
  WorkRange& operator=(const WorkRange&) = delete;

 private:
  const PipelineConfig& config_;
  std::int64_t batch_;
};

}  // namespace

Status validatePipeline(const Dataset& data, const PipelineConfig& config) {
  if (config.batch_size < 1) return Error{fmt::format("batch size {}; expected at least 1", config.batch_size)};
  if (config.workers < 0) return Error{fmt::format("{} data workers; expected 0 or more", config.workers)};
  if (config.prefetch < 1) return Error{fmt::format("prefetch {}; expected at least 1 batch per worker", config.prefetch)};
  if (config.crop_padding < 0) return Error{fmt::format("crop padding {}; expected 0 or more pixels", config.crop_padding)};
  if (!(config.std > 0.0f)) return Error{fmt::format("normalisation std {}; expected a positive number", config.std)};
  if (data.count < 0 || data.channels < 1 || data.height < 1 || data.width < 1) {
    return Error{fmt::format("{}: {} images of {}×{}×{}; expected a count of 0 or more and a shape of at least "
                             "1×1×1", data.source, data.count, data.channels, data.height, data.width)};
  }
  const auto pixels = static_cast<std::uint64_t>(data.count * data.imageSize());
  if (data.images.size() != pixels || data.labels.size() != static_cast<std::uint64_t>(data.count)) {
    return Error{fmt::format("{}: {} pixel bytes and {} labels; expected {} and {} for {} images of {}×{}×{}",
                             data.source, data.images.size(), data.labels.size(), pixels, data.count, data.count,
                             data.channels, data.height, data.width)};
  }
  return {};
}

BatchPipeline::BatchPipeline(const Dataset& data, PipelineConfig config)
    : data_(data),
      config_(std::move(config)),
      augment_{config_.crop_padding, true},
      normalize_(config_.mean, config_.std) {
  if (Status valid = validatePipeline(data_, config_); !valid) throw std::invalid_argument(valid.error().message);
  batches_ = config_.drop_last ? data_.count / config_.batch_size
                               : (data_.count + config_.batch_size - 1) / config_.batch_size;
  capacity_ = std::int64_t{config_.workers} * config_.prefetch;
  slots_.resize(static_cast<std::size_t>(capacity_));
  workers_.reserve(static_cast<std::size_t>(config_.workers));
  try {
    for (int i = 0; i < config_.workers; ++i) workers_.emplace_back([this] { workerLoop(); });
  } catch (...) {
    // The destructor does not run for a half-built object; join the threads already started.
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    throw;
  }
}

BatchPipeline::~BatchPipeline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void BatchPipeline::startEpoch(std::int64_t epoch) {
  std::unique_lock lock(mutex_);
  // No new claims for the old epoch; batches being built finish and are dropped with the rest.
  started_ = false;
  ready_cv_.wait(lock, [this] { return building_ == 0; });
  epoch_ = epoch;
  order_.resize(static_cast<std::size_t>(data_.count));
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  if (config_.shuffle) {
    // Fisher-Yates, from the end, with our own unbiased draws: the same permutation everywhere.
    SplitMix64 rng(deriveSeed(config_.seed, {kShuffleStream, static_cast<std::uint64_t>(epoch)}));
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
  }
  next_claim_ = 0;
  next_deliver_ = 0;
  for (std::optional<Batch>& slot : slots_) slot.reset();
  failure_ = nullptr;
  started_ = true;
  lock.unlock();
  work_cv_.notify_all();
}

std::optional<Batch> BatchPipeline::next() {
  if (workers_.empty()) {
    // Only the calling thread touches the state without workers, so no lock.
    if (!started_ || next_deliver_ >= batches_) return std::nullopt;
    Batch batch = build(next_deliver_);
    ++next_deliver_;
    return batch;
  }
  std::unique_lock lock(mutex_);
  if (!started_ || next_deliver_ >= batches_) return std::nullopt;
  std::optional<Batch>& slot = slots_[static_cast<std::size_t>(next_deliver_ % capacity_)];
  ready_cv_.wait(lock, [&] { return slot.has_value() || failure_ != nullptr; });
  if (failure_ != nullptr) std::rethrow_exception(failure_);
  std::optional<Batch> batch = std::exchange(slot, std::nullopt);
  ++next_deliver_;
  lock.unlock();
  work_cv_.notify_one();  // one more batch may now be claimed
  return batch;
}

bool BatchPipeline::claimable() const {
  return started_ && failure_ == nullptr && next_claim_ < batches_ && next_claim_ < next_deliver_ + capacity_;
}

void BatchPipeline::workerLoop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || claimable(); });
    if (stopping_) return;
    const std::int64_t index = next_claim_++;
    ++building_;
    lock.unlock();
    std::optional<Batch> batch;
    std::exception_ptr error;
    try {
      batch = build(index);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    --building_;
    if (error != nullptr) {
      if (failure_ == nullptr) failure_ = error;
    } else if (started_) {
      // started_ is false only while startEpoch drains: then this batch belongs to the old epoch.
      slots_[static_cast<std::size_t>(index % capacity_)] = std::move(batch);
    }
    ready_cv_.notify_all();  // next() may wait for this batch, startEpoch for building_ == 0
  }
}

Batch BatchPipeline::build(std::int64_t index) const {
  WorkRange range(config_, index);
  const std::int64_t first = index * config_.batch_size;
  const std::int64_t pixels = data_.imageSize();
  const ImageShape shape{data_.channels, data_.height, data_.width};
  Batch batch;
  batch.index = index;
  batch.size = std::min(config_.batch_size, data_.count - first);
  batch.images.resize(static_cast<std::size_t>(batch.size * pixels));
  batch.labels.resize(static_cast<std::size_t>(batch.size));
  // One stream per batch, drawn image by image in batch order: the batch is the unit of work, so
  // its bytes cannot depend on which worker built it.
  SplitMix64 rng(deriveSeed(config_.seed, {kAugmentStream, static_cast<std::uint64_t>(epoch_),
                                            static_cast<std::uint64_t>(index)}));
  for (std::int64_t k = 0; k < batch.size; ++k) {
    const std::int64_t sample = order_[static_cast<std::size_t>(first + k)];
    const std::uint8_t* image = data_.images.data() + sample * pixels;
    float* out = batch.images.data() + k * pixels;
    if (config_.augment) {
      augmentImage(image, shape, augment_, rng, normalize_, out);
    } else {
      normalizeImage(image, pixels, normalize_, out);
    }
    batch.labels[static_cast<std::size_t>(k)] = static_cast<float>(data_.labels[static_cast<std::size_t>(sample)]);
  }
  return batch;
}

}  // namespace ampscope::trainer
