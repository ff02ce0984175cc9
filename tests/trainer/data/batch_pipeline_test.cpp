#include "trainer/data/batch_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace ampscope::trainer {
namespace {

using namespace std::chrono_literals;

// count 1×2×2 images whose first two pixels spell the image's number, so a batch made without
// augmentation says which images it holds. Labels are the number mod 10.
Dataset numberedDataset(std::int64_t count) {
  Dataset data;
  data.count = count;
  data.height = 2;
  data.width = 2;
  data.source = "numbered";
  for (std::int64_t i = 0; i < count; ++i) {
    data.images.insert(data.images.end(), {static_cast<std::uint8_t>(i & 0xff), static_cast<std::uint8_t>(i >> 8), 7, 7});
    data.labels.push_back(static_cast<std::uint8_t>(i % 10));
  }
  return data;
}

// Plain config whose normalisation leaves bytes readable (mean 0, std 1/255).
PipelineConfig plainConfig(std::int64_t batch_size, int workers) {
  PipelineConfig config;
  config.batch_size = batch_size;
  config.workers = workers;
  config.augment = false;
  config.mean = 0.0f;
  config.std = 1.0f / 255.0f;
  return config;
}

std::vector<std::int64_t> numbersIn(const Batch& batch) {
  std::vector<std::int64_t> numbers;
  for (std::int64_t k = 0; k < batch.size; ++k) {
    const auto low = std::lround(batch.images[static_cast<std::size_t>(k * 4)]);
    const auto high = std::lround(batch.images[static_cast<std::size_t>(k * 4 + 1)]);
    numbers.push_back(high * 256 + low);
  }
  return numbers;
}

std::vector<Batch> epochOf(BatchPipeline& pipeline, std::int64_t epoch) {
  pipeline.startEpoch(epoch);
  std::vector<Batch> batches;
  while (std::optional<Batch> batch = pipeline.next()) batches.push_back(std::move(*batch));
  return batches;
}

void expectSameBatches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, static_cast<std::int64_t>(i));
    EXPECT_EQ(b[i].index, static_cast<std::int64_t>(i));
    EXPECT_EQ(a[i].size, b[i].size);
    EXPECT_EQ(a[i].labels, b[i].labels) << "batch " << i;
    EXPECT_TRUE(a[i].images == b[i].images) << "batch " << i;  // bit-identical, not close
  }
}

TEST(BatchPipelineTest, BatchesCoverTheEpochOnceAndDropTheShortLast) {
  const Dataset data = numberedDataset(250);
  for (bool drop_last : {true, false}) {
    PipelineConfig config = plainConfig(16, 2);
    config.drop_last = drop_last;
    BatchPipeline pipeline(data, config);
    EXPECT_EQ(pipeline.batchesPerEpoch(), drop_last ? 15 : 16);
    const std::vector<Batch> batches = epochOf(pipeline, 0);
    ASSERT_EQ(static_cast<std::int64_t>(batches.size()), pipeline.batchesPerEpoch());
    std::set<std::int64_t> seen;
    for (const Batch& batch : batches) {
      EXPECT_EQ(batch.size, batch.index == 15 ? 10 : 16);
      EXPECT_EQ(batch.images.size(), static_cast<std::size_t>(batch.size * 4));
      const std::vector<std::int64_t> numbers = numbersIn(batch);
      for (std::size_t k = 0; k < numbers.size(); ++k) {
        ASSERT_TRUE(seen.insert(numbers[k]).second) << "image " << numbers[k] << " twice";
        EXPECT_EQ(batch.labels[k], static_cast<float>(numbers[k] % 10));
      }
    }
    EXPECT_EQ(seen.size(), drop_last ? 240u : 250u);
    EXPECT_LT(*seen.rbegin(), 250);
  }
}

TEST(BatchPipelineTest, WithoutShuffleBatchesFollowTheDatasetOrder) {
  const Dataset data = numberedDataset(40);
  PipelineConfig config = plainConfig(8, 0);
  config.shuffle = false;
  BatchPipeline pipeline(data, config);
  const std::vector<Batch> batches = epochOf(pipeline, 3);
  ASSERT_EQ(batches.size(), 5u);
  EXPECT_EQ(numbersIn(batches[2]), (std::vector<std::int64_t>{16, 17, 18, 19, 20, 21, 22, 23}));
}

TEST(BatchPipelineTest, SameBatchesWhateverTheWorkerCount) {
  const Dataset data = makeSyntheticDataset(300, 3);
  PipelineConfig config;  // shuffle and augmentation on
  config.batch_size = 32;
  config.seed = 7;
  config.drop_last = false;
  std::vector<std::vector<Batch>> epoch0, epoch1;  // per worker count
  for (int workers : {0, 1, 4}) {
    config.workers = workers;
    BatchPipeline pipeline(data, config);
    epoch0.push_back(epochOf(pipeline, 0));
    epoch1.push_back(epochOf(pipeline, 1));
  }
  ASSERT_EQ(epoch0[0].size(), 10u);
  for (std::size_t run = 1; run < epoch0.size(); ++run) {
    SCOPED_TRACE(run == 1 ? "1 worker" : "4 workers");
    expectSameBatches(epoch0[0], epoch0[run]);
    expectSameBatches(epoch1[0], epoch1[run]);
  }
}

TEST(BatchPipelineTest, EachEpochAndSeedHasItsOwnOrderAndAugmentation) {
  const Dataset data = numberedDataset(64);
  BatchPipeline pipeline(data, plainConfig(64, 0));
  const std::vector<std::int64_t> epoch0 = numbersIn(epochOf(pipeline, 0).at(0));
  const std::vector<std::int64_t> epoch1 = numbersIn(epochOf(pipeline, 1).at(0));
  EXPECT_NE(epoch0, epoch1);
  EXPECT_EQ(numbersIn(epochOf(pipeline, 0).at(0)), epoch0);  // an epoch is reproducible
  PipelineConfig reseeded = plainConfig(64, 0);
  reseeded.seed = 1;
  BatchPipeline other(data, reseeded);
  EXPECT_NE(numbersIn(epochOf(other, 0).at(0)), epoch0);

  // Same images in the same order (no shuffle), augmented differently from one epoch to the next.
  const Dataset synthetic = makeSyntheticDataset(32, 1);
  PipelineConfig augmenting;
  augmenting.batch_size = 32;
  augmenting.shuffle = false;
  BatchPipeline augmented(synthetic, augmenting);
  const Batch first = epochOf(augmented, 0).at(0);
  EXPECT_NE(first.images, epochOf(augmented, 1).at(0).images);
  EXPECT_EQ(first.images, epochOf(augmented, 0).at(0).images);
}

TEST(BatchPipelineTest, NextReturnsNothingBeforeStartEpochAndAfterTheEnd) {
  const Dataset data = numberedDataset(10);
  for (int workers : {0, 2}) {
    BatchPipeline pipeline(data, plainConfig(4, workers));
    EXPECT_EQ(pipeline.epoch(), -1);
    EXPECT_FALSE(pipeline.next().has_value());
    EXPECT_EQ(epochOf(pipeline, 0).size(), 2u);
    EXPECT_FALSE(pipeline.next().has_value());
  }
  BatchPipeline too_few(numberedDataset(3), plainConfig(4, 2));  // drop_last leaves no batch at all
  EXPECT_EQ(too_few.batchesPerEpoch(), 0);
  EXPECT_TRUE(epochOf(too_few, 0).empty());
}

// Runs work on a thread of its own and says whether it finished in time; a hung destructor
// fails the test instead of hanging the suite (the stuck thread is abandoned with its data).
template <typename Work>
bool finishesWithin(std::chrono::seconds limit, Work work) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([done, work = std::move(work)]() mutable {
    work();
    done->set_value();
  }).detach();
  return finished.wait_for(limit) == std::future_status::ready;
}

TEST(BatchPipelineTest, DestroyingMidEpochDoesNotHang) {
  auto data = std::make_shared<Dataset>(makeSyntheticDataset(2000, 1));
  for (int workers : {1, 4}) {
    const bool finished = finishesWithin(10s, [data, workers] {
      PipelineConfig config;
      config.batch_size = 16;
      config.workers = workers;
      BatchPipeline pipeline(*data, config);
      pipeline.startEpoch(0);
      (void)pipeline.next();  // the workers are now busy filling the queue
    });
    EXPECT_TRUE(finished) << workers << " workers";
  }
  EXPECT_TRUE(finishesWithin(10s, [data] {
    PipelineConfig config;
    config.workers = 3;
    BatchPipeline never_started(*data, config);
  }));
}

TEST(BatchPipelineTest, StartEpochMidEpochRestartsCleanly) {
  const Dataset data = makeSyntheticDataset(400, 2);
  PipelineConfig config;
  config.batch_size = 16;
  config.workers = 3;
  config.prefetch = 3;
  BatchPipeline fresh(data, config);
  const std::vector<Batch> epoch1 = epochOf(fresh, 1);
  const std::vector<Batch> epoch0 = epochOf(fresh, 0);

  BatchPipeline pipeline(data, config);
  pipeline.startEpoch(0);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pipeline.next().has_value());
  expectSameBatches(epochOf(pipeline, 1), epoch1);
  pipeline.startEpoch(0);
  ASSERT_TRUE(pipeline.next().has_value());
  expectSameBatches(epochOf(pipeline, 0), epoch0);  // restarting the same epoch starts it over
}

TEST(BatchPipelineTest, WorkersBuildAtMostWorkersTimesPrefetchAhead) {
  const Dataset data = numberedDataset(400);
  std::mutex mutex;
  std::condition_variable changed;
  int begun = 0;
  PipelineConfig config = plainConfig(4, 2);
  config.prefetch = 2;
  config.on_work = [&](const char*, std::int64_t, bool begin) {
    std::lock_guard lock(mutex);
    begun += begin ? 1 : 0;
    changed.notify_all();
  };
  BatchPipeline pipeline(data, config);
  pipeline.startEpoch(0);
  std::unique_lock lock(mutex);
  ASSERT_TRUE(changed.wait_for(lock, 10s, [&] { return begun >= 4; }));
  changed.wait_for(lock, 100ms, [&] { return begun > 4; });  // give a broken bound time to show
  EXPECT_EQ(begun, 4);
  lock.unlock();
  ASSERT_TRUE(pipeline.next().has_value());  // frees one place in the queue
  lock.lock();
  EXPECT_TRUE(changed.wait_for(lock, 10s, [&] { return begun >= 5; }));
  changed.wait_for(lock, 100ms, [&] { return begun > 5; });
  EXPECT_EQ(begun, 5);
}

TEST(BatchPipelineTest, OnWorkBracketsEveryBatchOnTheThreadThatBuildsIt) {
  const Dataset data = numberedDataset(64);
  for (int workers : {0, 3}) {
    std::mutex mutex;
    std::vector<std::tuple<std::thread::id, std::int64_t, bool>> calls;
    PipelineConfig config = plainConfig(8, workers);
    config.on_work = [&](const char* what, std::int64_t batch, bool begin) {
      EXPECT_STREQ(what, kBatchWork);
      std::lock_guard lock(mutex);
      calls.emplace_back(std::this_thread::get_id(), batch, begin);
    };
    BatchPipeline pipeline(data, config);
    ASSERT_EQ(epochOf(pipeline, 0).size(), 8u);
    std::lock_guard lock(mutex);
    ASSERT_EQ(calls.size(), 16u) << workers << " workers";
    std::set<std::int64_t> batches;
    for (const auto& [thread, batch, begin] : calls) {
      if (!begin) continue;
      batches.insert(batch);
      EXPECT_EQ(thread == std::this_thread::get_id(), workers == 0);
      // The matching end comes later, from the same thread.
      EXPECT_EQ(std::count(calls.begin(), calls.end(), std::make_tuple(thread, batch, false)), 1);
    }
    EXPECT_EQ(batches.size(), 8u);
  }
}

TEST(BatchPipelineTest, AnErrorWhileBuildingIsRethrownByNext) {
  const Dataset data = numberedDataset(64);
  for (int workers : {0, 2}) {
    PipelineConfig config = plainConfig(8, workers);
    config.on_work = [](const char*, std::int64_t batch, bool begin) {
      if (batch == 3 && begin) throw std::runtime_error("batch 3 failed");
    };
    BatchPipeline pipeline(data, config);
    pipeline.startEpoch(0);
    EXPECT_THROW(
        {
          for (int i = 0; i < 8; ++i) (void)pipeline.next();
        },
        std::runtime_error)
        << workers << " workers";
  }
}

TEST(BatchPipelineTest, InvalidSettingsAreRefusedWithAMessage) {
  const Dataset data = numberedDataset(10);
  PipelineConfig config = plainConfig(0, 0);
  const Status status = validatePipeline(data, config);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("batch size 0"), std::string::npos) << status.error().message;
  EXPECT_THROW(BatchPipeline(data, config), std::invalid_argument);
  Dataset short_labels = data;
  short_labels.labels.pop_back();
  EXPECT_FALSE(validatePipeline(short_labels, plainConfig(4, 0)).ok());
  EXPECT_TRUE(validatePipeline(data, plainConfig(4, 0)).ok());
}

}  // namespace
}  // namespace ampscope::trainer
