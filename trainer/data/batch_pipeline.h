#pragma once
// Turns a Dataset into an epoch of normalised float batches: shuffled, augmented, batched, either
// on the calling thread (workers = 0, so the cost shows on the training thread's timeline, which
// is the point of that setting) or by worker threads that build batches ahead into a bounded
// queue. Every batch depends only on (seed, epoch, batch index), never on which thread built it
// or when, so a run is reproducible whatever the worker count.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/result.h"
#include "trainer/data/augment.h"
#include "trainer/data/dataset.h"

namespace ampscope::trainer {

struct PipelineConfig {
  std::int64_t batch_size = 64;  // images per batch
  int workers = 0;               // 0: next() builds each batch on the calling thread
  int prefetch = 2;              // batches queued per worker
  bool shuffle = true;           // a fresh permutation per epoch; off: dataset order
  bool augment = true;           // random crop and horizontal flip; off: normalisation only
  int crop_padding = 2;          // pixels
  bool drop_last = true;         // drop the last, partial batch instead of returning it short
  std::uint64_t seed = 0;
  float mean = kFashionMnistMean, std = kFashionMnistStd;  // normalisation, on the 0-1 scale
  // Called around the work of each batch (begin = true, then false), by whichever thread does it,
  // with what = kBatchWork: the trainer turns it into NVTX ranges. With workers it is called from
  // several threads at once, so it must be thread-safe.
  std::function<void(const char* what, std::int64_t batch, bool begin)> on_work;
};

// on_work's `what` for building one batch: gathering, augmenting and normalising its images.
inline constexpr const char* kBatchWork = "batch";

struct Batch {
  std::int64_t index = 0;     // within the epoch, from 0
  std::int64_t size = 0;      // images
  std::vector<float> images;  // size*channels*height*width, normalised, row-major
  std::vector<float> labels;  // size class indices, as floats
};

// Checks what the constructor requires: a batch size, worker and prefetch counts and padding in
// range, a positive std, and a dataset whose byte arrays match its count and shape.
Status validatePipeline(const Dataset& data, const PipelineConfig& config);

class BatchPipeline {
 public:
  // data must outlive the pipeline. Throws std::invalid_argument with validatePipeline's message
  // when that refuses the input: callers with user input should validate first.
  BatchPipeline(const Dataset& data, PipelineConfig config);
  ~BatchPipeline();  // stops and joins the workers, mid-epoch or not
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

  // Starts (or restarts: any batches of the epoch in progress are dropped) an epoch; next() then
  // returns its batches from index 0. Waits for batches being built to finish, at most one each.
  void startEpoch(std::int64_t epoch);
  // The epoch's next batch in index order, or std::nullopt at its end or before any startEpoch.
  // Blocks until a worker has built it. Rethrows an exception thrown while building a batch (by
  // on_work, or std::bad_alloc) until the next startEpoch. Call from one thread only.
  std::optional<Batch> next();
  std::int64_t batchesPerEpoch() const { return batches_; }
  std::int64_t epoch() const { return epoch_; }  // the last started, -1 before the first
  const PipelineConfig& config() const { return config_; }

 private:
  Batch build(std::int64_t index) const;
  void workerLoop();
  bool claimable() const;  // with mutex_ held

  const Dataset& data_;
  PipelineConfig config_;
  AugmentConfig augment_;
  PixelNormalizer normalize_;
  std::int64_t batches_ = 0;
  std::int64_t capacity_ = 0;  // batches claimed and not yet returned by next(), at most

  // The epoch's permutation and number. Workers read them without the lock while building; only
  // startEpoch writes them, under the lock and while no worker is building, and a worker's claim
  // (under the lock) orders its reads after that write.
  std::vector<std::int64_t> order_;
  std::int64_t epoch_ = -1;

  std::mutex mutex_;
  std::condition_variable work_cv_;   // workers: a batch can be claimed, or stop
  std::condition_variable ready_cv_;  // next(): its batch is ready; startEpoch: workers are idle
  bool started_ = false;              // an epoch is running and its batches may be claimed
  bool stopping_ = false;
  std::int64_t next_claim_ = 0;       // the next batch index a worker will build
  std::int64_t next_deliver_ = 0;     // the next batch index next() returns
  int building_ = 0;                  // workers between claim and hand-in
  std::vector<std::optional<Batch>> slots_;  // batch i waits in slot i % capacity_
  std::exception_ptr failure_;
  std::vector<std::thread> workers_;
};

}  // namespace ampscope::trainer
