#include "collector/cupti/gpu_activity_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "collector/collector_clock.h"
#include "tests/collector/cupti/activity_buffer_builder.h"
#include "tests/collector/cupti/cupti_test_records.h"
#include "tests/collector/cupti/fake_cupti_api.h"
#include "tests/collector/cupti/recording_sink.h"

namespace ampscope::collector {
namespace {

using test::kernelRecord;

constexpr std::size_t kBufferBytes = 64 * 1024;

std::string kindText(CUpti_ActivityKind kind) { return std::to_string(static_cast<int>(kind)); }

class GpuActivitySourceTest : public ::testing::Test {
 protected:
  // Starts a source over fake_, which plays CUPTI's part and outlives the source.
  std::unique_ptr<GpuActivitySource> start(GpuActivityOptions options = smallOptions()) {
    auto source = GpuActivitySource::start(fake_.borrow(), options);
    if (!source) {
      ADD_FAILURE() << source.error().message;
      return nullptr;
    }
    return std::move(*source);
  }

  static GpuActivityOptions smallOptions() {
    GpuActivityOptions options;
    options.buffer_bytes = kBufferBytes;
    options.pooled_buffers = 2;
    options.max_buffers = 4;
    return options;
  }

  // CUPTI's side: fills a buffer it was lent with records and hands it back.
  void complete(std::uint8_t* buffer, const ActivityBufferBuilder& records) {
    const std::size_t valid = records.writeTo(buffer, kBufferBytes, fake_);
    fake_.completeBuffer(buffer, kBufferBytes, valid);
  }

  FakeCuptiApi fake_;
  RecordingSink sink_;
};

TEST_F(GpuActivitySourceTest, RegistersTheCollectorClockAndSystemThreadIdsBeforeEnablingAnyKind) {
  auto source = start();
  ASSERT_NE(source, nullptr);

  ASSERT_GE(fake_.calls.size(), 4u);
  EXPECT_EQ(fake_.calls[0], "timestamp");
  EXPECT_EQ(fake_.calls[1], "threadIdType " + std::to_string(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
  EXPECT_EQ(fake_.calls[2], "callbacks");
  EXPECT_EQ(fake_.calls[3].rfind("enable ", 0), 0u);
  ASSERT_NE(fake_.timestamp, nullptr);
  const std::int64_t before = collectorNowNs();
  const auto stamp = static_cast<std::int64_t>(fake_.timestamp());
  const std::int64_t after = collectorNowNs();
  EXPECT_GE(stamp, before);
  EXPECT_LE(stamp, after);
  EXPECT_TRUE(source->recording());
}

TEST_F(GpuActivitySourceTest, EnablesTheCuptiKindsOfEachRequestedKind) {
  GpuActivityOptions options = smallOptions();
  options.kinds = GpuActivityKind::kKernel | GpuActivityKind::kRuntime;
  auto kernels = start(options);
  ASSERT_NE(kernels, nullptr);
  EXPECT_EQ(fake_.enabled,
            (std::vector<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}));
  kernels.reset();

  options.kinds = GpuActivityKind::kMemcpy | GpuActivityKind::kSynchronization;
  auto copies = start(options);
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ(fake_.enabled, (std::vector<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_MEMCPY,
                                                             CUPTI_ACTIVITY_KIND_MEMCPY2,
                                                             CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}));
  copies.reset();

  auto everything = start(GpuActivityOptions{});
  ASSERT_NE(everything, nullptr);
  EXPECT_EQ(fake_.enabled,
            (std::vector<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
                                             CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                             CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                             CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
                                             CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MEMORY2}));
  everything.reset();

  // Allocations and frees: MEMORY2, one record per operation (the older MEMORY kind pairs them).
  options.kinds = GpuActivityKind::kMemory;
  auto memory = start(options);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(fake_.enabled, (std::vector<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_MEMORY2}));
}

TEST_F(GpuActivitySourceTest, SaysNoGpuActivityCanBeRecordedAndWhyWhenCuptiCannotStart) {
  fake_.failing_kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  fake_.diagnosis = "the NVIDIA driver library libcuda.so.1 cannot be loaded (not found)";

  auto source = GpuActivitySource::start(fake_.borrow(), smallOptions());

  ASSERT_FALSE(source);
  const std::string& message = source.error().message;
  EXPECT_NE(message.find("no GPU activity can be recorded"), std::string::npos) << message;
  EXPECT_NE(message.find("cuptiActivityEnable(kind 10) failed: CUPTI_ERROR_NOT_INITIALIZED"), std::string::npos)
      << message;
  EXPECT_NE(message.find("libcuda.so.1 cannot be loaded"), std::string::npos) << message;
  // What was enabled before the failure is disabled again, and the process is free for another.
  EXPECT_TRUE(fake_.enabled.empty());
  fake_.failing_kind.reset();
  EXPECT_NE(start(), nullptr);
}

TEST_F(GpuActivitySourceTest, RefusesASecondSourceWhileOneRecords) {
  auto first = start();
  ASSERT_NE(first, nullptr);

  auto second = GpuActivitySource::start(std::make_unique<FakeCuptiApi>(), smallOptions());

  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("another one is already recording"), std::string::npos)
      << second.error().message;
}

TEST_F(GpuActivitySourceTest, RejectsOptionsItCannotWorkWith) {
  GpuActivityOptions no_kinds = smallOptions();
  no_kinds.kinds = GpuActivityKinds();
  GpuActivityOptions tiny = smallOptions();
  tiny.buffer_bytes = 100;
  GpuActivityOptions pool_over_limit = smallOptions();
  pool_over_limit.pooled_buffers = 5;

  for (const GpuActivityOptions& options : {no_kinds, tiny, pool_over_limit}) {
    auto source = GpuActivitySource::start(std::make_unique<FakeCuptiApi>(), options);
    ASSERT_FALSE(source);
    EXPECT_EQ(source.error().message.rfind("GPU activity options: ", 0), 0u) << source.error().message;
  }
  auto tiny_source = GpuActivitySource::start(std::make_unique<FakeCuptiApi>(), tiny);
  EXPECT_NE(tiny_source.error().message.find("buffer_bytes is 100"), std::string::npos);
}

TEST_F(GpuActivitySourceTest, QueuesCompletedBuffersAndDecodesThemOnlyInDrain) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  std::size_t size = 0;
  std::uint8_t* buffer = fake_.requestBuffer(&size);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(size, kBufferBytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer) % 8, 0u);

  complete(buffer, ActivityBufferBuilder().add(kernelRecord(100, 200, 1, "queued")));

  EXPECT_TRUE(sink_.trace.kernels.empty());
  EXPECT_TRUE(source->waitForBuffers(std::chrono::milliseconds(0)));
  const DecodeCounts counts = source->drain(sink_);
  EXPECT_EQ(counts.rows, 1u);
  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "queued");
  EXPECT_FALSE(source->waitForBuffers(std::chrono::milliseconds(0)));
  EXPECT_EQ(source->drain(sink_).records, 0u);
  EXPECT_EQ(source->stats().decoded.rows, 1u);
}

TEST_F(GpuActivitySourceTest, WakesAWaitingWriterWhenABufferCompletes) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  std::size_t size = 0;
  std::uint8_t* buffer = fake_.requestBuffer(&size);
  std::thread cupti_worker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    complete(buffer, ActivityBufferBuilder().add(kernelRecord(100, 200, 1, "late")));
  });
  const bool woke = source->waitForBuffers(std::chrono::seconds(10));
  cupti_worker.join();
  EXPECT_TRUE(woke);
}

TEST_F(GpuActivitySourceTest, LosesNoBufferWhileCuptiThreadsCompleteAndTheWriterDrains) {
  GpuActivityOptions options = smallOptions();
  options.max_buffers = 8;
  auto source = start(options);
  ASSERT_NE(source, nullptr);
  constexpr int kThreads = 4;
  constexpr int kBuffersPerThread = 200;
  std::vector<std::thread> cupti_threads;
  for (int t = 0; t < kThreads; ++t) {
    cupti_threads.emplace_back([&, t] {
      for (int i = 0; i < kBuffersPerThread; ++i) {
        std::size_t size = 0;
        std::uint8_t* buffer = nullptr;
        while ((buffer = fake_.requestBuffer(&size)) == nullptr) std::this_thread::yield();  // writer behind
        const auto correlation = static_cast<std::uint32_t>(t * kBuffersPerThread + i + 1);
        complete(buffer, ActivityBufferBuilder().add(kernelRecord(100, 200, correlation, "k")));
      }
    });
  }
  std::thread joiner([&] {
    for (std::thread& thread : cupti_threads) thread.join();
  });
  while (sink_.trace.kernels.size() < kThreads * kBuffersPerThread) {
    source->waitForBuffers(std::chrono::milliseconds(10));
    source->drain(sink_);
  }
  joiner.join();
  source->drain(sink_);

  std::vector<std::uint64_t> correlations;
  for (const trace::Kernel& kernel : sink_.trace.kernels) correlations.push_back(kernel.correlation_id);
  std::sort(correlations.begin(), correlations.end());
  ASSERT_EQ(correlations.size(), std::size_t{kThreads * kBuffersPerThread});
  for (std::size_t i = 0; i < correlations.size(); ++i) ASSERT_EQ(correlations[i], i + 1);
  const GpuActivityStats stats = source->stats();
  EXPECT_EQ(stats.buffers_completed, std::uint64_t{kThreads * kBuffersPerThread});
  EXPECT_EQ(stats.outstanding_buffers, 0u);
  EXPECT_LE(stats.pooled_buffers, 2u);
}

TEST_F(GpuActivitySourceTest, RecyclesPooledBuffersAfterDrain) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->stats().pooled_buffers, 2u);
  std::size_t size = 0;
  std::uint8_t* first = fake_.requestBuffer(&size);
  complete(first, ActivityBufferBuilder().add(kernelRecord(100, 200, 1, "a")));
  EXPECT_EQ(source->stats().outstanding_buffers, 1u);
  source->drain(sink_);

  const GpuActivityStats stats = source->stats();
  EXPECT_EQ(stats.pooled_buffers, 2u);
  EXPECT_EQ(stats.outstanding_buffers, 0u);
  EXPECT_EQ(stats.buffers_requested, 1u);
  EXPECT_EQ(stats.buffers_completed, 1u);
  EXPECT_EQ(stats.fresh_buffers, 0u);
  EXPECT_EQ(fake_.requestBuffer(&size), first);  // the buffer just drained is lent again

  source.reset();
  fake_.completeBuffer(first, size, 0);  // CUPTI returns it late; freed without a source
}

TEST_F(GpuActivitySourceTest, LendsAndCountsFreshBuffersWhenThePoolIsEmptyAndFreesThemAfterDrain) {
  auto source = start();  // pool of 2, at most 4 out
  ASSERT_NE(source, nullptr);
  std::size_t size = 0;
  std::vector<std::uint8_t*> lent;
  for (int i = 0; i < 3; ++i) lent.push_back(fake_.requestBuffer(&size));
  ASSERT_EQ(std::count(lent.begin(), lent.end(), nullptr), 0);
  EXPECT_EQ(source->stats().fresh_buffers, 1u);
  EXPECT_EQ(source->stats().outstanding_buffers, 3u);

  for (std::uint8_t* buffer : lent) complete(buffer, ActivityBufferBuilder().add(kernelRecord(1, 2, 1, "k")));
  source->drain(sink_);

  EXPECT_EQ(sink_.trace.kernels.size(), 3u);
  const GpuActivityStats stats = source->stats();
  EXPECT_EQ(stats.pooled_buffers, 2u);  // back to the pool's size: the extra one was freed
  EXPECT_EQ(stats.outstanding_buffers, 0u);
}

TEST_F(GpuActivitySourceTest, RefusesBuffersBeyondTheLimitSoCuptiDropsAndCountsRecords) {
  auto source = start();  // at most 4 out
  ASSERT_NE(source, nullptr);
  std::size_t size = 0;
  std::vector<std::uint8_t*> lent;
  for (int i = 0; i < 4; ++i) lent.push_back(fake_.requestBuffer(&size));
  ASSERT_EQ(std::count(lent.begin(), lent.end(), nullptr), 0);

  size = 123;
  EXPECT_EQ(fake_.requestBuffer(&size), nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(source->stats().refused_requests, 1u);

  fake_.dropped = 250;  // what CUPTI drops for want of a buffer
  source->drain(sink_);
  EXPECT_EQ(sink_.lostCount(kLostDroppedRecords), 250u);
  EXPECT_EQ(source->stats().dropped_records, 250u);
  source->drain(sink_);  // CUPTI's count starts again from zero once read
  EXPECT_EQ(sink_.lostCount(kLostDroppedRecords), 250u);

  for (std::uint8_t* buffer : lent) fake_.completeBuffer(buffer, kBufferBytes, 0);
}

TEST_F(GpuActivitySourceTest, CountsDroppedRecordCountsItCannotRead) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  fake_.dropped_unreadable = true;

  source->drain(sink_);

  EXPECT_EQ(sink_.lostCount(kLostUncountedDrops), 1u);
}

TEST_F(GpuActivitySourceTest, StopDisablesWhatItEnabledAndForcesAFlush) {
  GpuActivityOptions options = smallOptions();
  options.kinds = GpuActivityKind::kKernel | GpuActivityKind::kMemset;
  auto source = start(options);
  ASSERT_NE(source, nullptr);
  fake_.calls.clear();

  ASSERT_TRUE(source->stop());

  EXPECT_TRUE(fake_.enabled.empty());
  EXPECT_EQ(fake_.calls, (std::vector<std::string>{"disable " + kindText(CUPTI_ACTIVITY_KIND_MEMSET),
                                                    "disable " + kindText(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                                                    "flush forced"}));
  EXPECT_FALSE(source->recording());
  fake_.calls.clear();
  EXPECT_TRUE(source->stop());  // a second stop does nothing
  EXPECT_TRUE(fake_.calls.empty());
}

TEST_F(GpuActivitySourceTest, FlushAsksCuptiForCompletedOrAllBuffers) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  fake_.calls.clear();

  ASSERT_TRUE(source->flush());
  ASSERT_TRUE(source->flush(FlushMode::kForced));

  EXPECT_EQ(fake_.calls, (std::vector<std::string>{"flush", "flush forced"}));
}

TEST_F(GpuActivitySourceTest, QueuesBuffersCuptiHandsBackAfterStopForTheLastDrain) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  std::size_t size = 0;
  std::uint8_t* buffer = fake_.requestBuffer(&size);
  ASSERT_TRUE(source->stop());

  complete(buffer, ActivityBufferBuilder().add(kernelRecord(100, 200, 1, "after_stop")));
  source->drain(sink_);

  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "after_stop");
}

TEST_F(GpuActivitySourceTest, RefusesBuffersOnceNoSourceIsLeftToDrainThem) {
  auto source = start();
  ASSERT_NE(source, nullptr);
  const CUpti_BuffersCallbackRequestFunc requested = fake_.requested;  // CUPTI keeps it after the source is gone
  source.reset();

  std::uint8_t* buffer = nullptr;
  std::size_t size = 99;
  std::size_t max_records = 99;
  requested(&buffer, &size, &max_records);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(size, 0u);
}

TEST_F(GpuActivitySourceTest, DecodesAndFreesABufferLentByAnEarlierSource) {
  auto earlier = start();
  ASSERT_NE(earlier, nullptr);
  std::size_t size = 0;
  std::uint8_t* lent_earlier = fake_.requestBuffer(&size);
  earlier.reset();  // CUPTI still holds lent_earlier
  auto later = start();
  ASSERT_NE(later, nullptr);

  complete(lent_earlier, ActivityBufferBuilder().add(kernelRecord(100, 200, 1, "from_earlier")));
  later->drain(sink_);

  ASSERT_EQ(sink_.trace.kernels.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernels[0].name), "from_earlier");
  const GpuActivityStats stats = later->stats();
  EXPECT_EQ(stats.pooled_buffers, 2u);  // not taken into the later source's pool
  EXPECT_EQ(stats.outstanding_buffers, 0u);
}

}  // namespace
}  // namespace ampscope::collector
