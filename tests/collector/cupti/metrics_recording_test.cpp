// Hardware counters through a whole recording: the HardwareMetricsSource on the recorder's writer
// thread, with a fake CUPTI, into a profile read back from disk.

#include <gtest/gtest.h>

#include "collector/collector_clock.h"
#include "collector/cupti/hardware_metrics_source.h"
#include "collector/profile_recorder.h"
#include "tests/collector/cupti/fake_counter_profiler_api.h"
#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope::collector {
namespace {

std::unique_ptr<ProfileRecorder> startRecorder(const std::string& path) {
  RecorderOptions options;
  options.path = path;
  options.source_detail = "metrics_recording_test";
  auto recorder = ProfileRecorder::start(options);
  EXPECT_TRUE(recorder.ok()) << (recorder.ok() ? "" : recorder.error().message);
  return recorder.ok() ? std::move(recorder).value() : nullptr;
}

std::unique_ptr<HardwareMetricsSource> startSource(FakeCounterProfilerApi& fake, MetricsMode mode) {
  auto source = HardwareMetricsSource::start(fake.borrow(), mode, {}, 99);
  EXPECT_TRUE(source.ok()) << (source.ok() ? "" : source.error().message);
  return source.ok() ? std::move(source).value() : nullptr;
}

TEST(MetricsRecordingTest, SampledMetricsReachTheProfileOnTheRecordingsClock) {
  test::ScratchDir dir;
  const std::string path = dir.file("sampled.sqlite");
  auto recorder = startRecorder(path);
  ASSERT_TRUE(recorder);
  FakeCounterProfilerApi fake;
  auto source = startSource(fake, MetricsMode::kSampled);
  ASSERT_TRUE(source);
  fake.createContext(FakeCounterProfilerApi::context(1), 0);
  const std::int64_t t = collectorNowNs();
  fake.decodes.push_back({{{static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(t + 100), {1, 1}},
                           {static_cast<std::uint64_t>(t + 100), static_cast<std::uint64_t>(t + 200), {75.0, 90.0}}}});
  recorder->addSource(std::move(source));
  ASSERT_TRUE(recorder->stop());

  auto profile = trace::db::readProfile(path);
  ASSERT_TRUE(profile) << profile.error().message;
  ASSERT_EQ(profile->metric_samples.size(), 2u);
  EXPECT_EQ(profile->str(profile->metric_samples[0].metric), "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(profile->metric_samples[0].start_ns, t + 100);
  EXPECT_EQ(profile->metric_samples[0].value, 75.0);
  EXPECT_EQ(profile->metric_samples[1].value, 90.0);
  EXPECT_TRUE(fake.live.empty());  // stopped and released by the recorder's last cycle
}

TEST(MetricsRecordingTest, RefusalByTheDriverLeavesTheNoteAndEverythingElseRecorded) {
  test::ScratchDir dir;
  const std::string path = dir.file("refused.sqlite");
  auto recorder = startRecorder(path);
  ASSERT_TRUE(recorder);
  FakeCounterProfilerApi fake;
  fake.refuse_availability = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  auto source = startSource(fake, MetricsMode::kSampled);
  ASSERT_TRUE(source);
  fake.createContext(FakeCounterProfilerApi::context(1), 0);
  recorder->addSource(std::move(source));
  recorder->counter("loss", 0, 2.5);
  recorder->counter("loss", 1, 2.25);
  ASSERT_TRUE(recorder->stop());

  auto profile = trace::db::readProfile(path);
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_EQ(profile->counters.size(), 2u);
  EXPECT_TRUE(profile->metric_samples.empty());
  const auto& lost = profile->import_stats.lost;
  ASSERT_EQ(lost.count(std::string(kPrivilegeNote)), 1u);
  EXPECT_EQ(lost.at(std::string(kPrivilegeNote)), 1u);
}

TEST(MetricsRecordingTest, PerKernelRangesReachTheProfileInOrder) {
  test::ScratchDir dir;
  const std::string path = dir.file("ranges.sqlite");
  auto recorder = startRecorder(path);
  ASSERT_TRUE(recorder);
  FakeCounterProfilerApi fake;
  auto source = startSource(fake, MetricsMode::kPerKernel);
  ASSERT_TRUE(source);
  fake.createContext(FakeCounterProfilerApi::context(1), 0);
  RangeCollection collection;
  for (int i = 0; i < 3; ++i) collection.ranges.push_back({"kernel_" + std::to_string(i), std::vector<double>(6, 10.0 * i)});
  fake.collections.push_back(collection);
  recorder->addSource(std::move(source));
  ASSERT_TRUE(recorder->stop());

  auto profile = trace::db::readProfile(path);
  ASSERT_TRUE(profile) << profile.error().message;
  ASSERT_EQ(profile->kernel_metrics.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const trace::KernelMetrics& range = profile->kernel_metrics[static_cast<std::size_t>(i)];
    EXPECT_EQ(profile->str(range.kernel_name), "kernel_" + std::to_string(i));
    EXPECT_FALSE(range.times_measured);
    EXPECT_EQ(range.pid, 99);
    ASSERT_EQ(range.values.size(), 6u);
    EXPECT_EQ(range.values[0].value, 10.0 * i);
  }
}

}  // namespace
}  // namespace ampscope::collector
