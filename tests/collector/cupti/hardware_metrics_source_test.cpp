#include "collector/cupti/hardware_metrics_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "collector/collector_clock.h"
#include "collector/cupti/context_range_profiler.h"
#include "collector/cupti/device_sampler.h"
#include "tests/collector/cupti/fake_counter_profiler_api.h"
#include "tests/collector/cupti/recording_sink.h"

namespace ampscope::collector {
namespace {

constexpr const char* kTensorShare = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kSmShare = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr std::int64_t kPid = 4242;

class HardwareMetricsSourceTest : public ::testing::Test {
 protected:
  std::unique_ptr<HardwareMetricsSource> start(MetricsMode mode) {
    auto source = HardwareMetricsSource::start(fake_.borrow(), mode, {}, kPid);
    if (!source) {
      ADD_FAILURE() << source.error().message;
      return nullptr;
    }
    return std::move(*source);
  }

  // A sample of the two PM-sampling metrics over [start, start + 100 us) on CUPTI's clock.
  static RawSample sample(std::int64_t start_ns, double tensor, double sm) {
    return {static_cast<std::uint64_t>(start_ns), static_cast<std::uint64_t>(start_ns + 100'000), {tensor, sm}};
  }

  std::vector<std::string> metricNames() const {
    std::vector<std::string> names;
    for (const trace::MetricSample& s : sink_.trace.metric_samples) names.emplace_back(sink_.str(s.metric));
    return names;
  }

  FakeCounterProfilerApi fake_;
  RecordingSink sink_;
};

TEST_F(HardwareMetricsSourceTest, SamplesAreStampedOnTheCollectorClockAndStoredOnePerMetric) {
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  EXPECT_TRUE(fake_.pm_setups.empty());  // started by the writer thread, not in CUPTI's callback
  source->drain(sink_);
  ASSERT_EQ(fake_.pm_setups.size(), 1u);
  EXPECT_EQ(fake_.pm_setups[0].metrics, (std::vector<std::string>{kTensorShare, kSmShare}));
  const std::int64_t t = collectorNowNs();
  // The first sample spans the set-up and is dropped; the next two are stored.
  fake_.decodes.push_back({{sample(t - 100'000, 50.0, 50.0), sample(t, 87.5, 99.0), sample(t + 100'000, 0.0, 12.5)}});
  source->drain(sink_);

  const auto& rows = sink_.trace.metric_samples;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(metricNames(), (std::vector<std::string>{kTensorShare, kSmShare, kTensorShare, kSmShare}));
  EXPECT_EQ(rows[0].start_ns, t);
  EXPECT_EQ(rows[0].end_ns, t + 100'000);
  EXPECT_EQ(rows[0].value, 87.5);
  EXPECT_EQ(rows[1].value, 99.0);
  EXPECT_EQ(rows[2].start_ns, t + 100'000);
  EXPECT_EQ(rows[3].value, 12.5);
  EXPECT_EQ(rows[0].device, 0u);
  EXPECT_TRUE(sink_.trace.import_stats.lost.empty());
  EXPECT_NE(source->describe().find("recorded: PM sampling of device 0 (GH100) every 100 us"), std::string::npos)
      << source->describe();
}

TEST_F(HardwareMetricsSourceTest, SamplesOnAnotherClockAreMovedOntoTheCollectorClock) {
  fake_.cupti_clock_offset_ns = -3'600'000'000'000;  // CUPTI an hour behind the collector
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  const std::int64_t cupti_now = static_cast<std::int64_t>(fake_.timestamp());
  fake_.decodes.push_back({{sample(cupti_now - 200'000, 1, 1), sample(cupti_now, 40.0, 80.0)}});
  source->drain(sink_);

  ASSERT_EQ(sink_.trace.metric_samples.size(), 2u);
  const std::int64_t stamped = sink_.trace.metric_samples[0].start_ns;
  // Within the few microseconds between the two clock readings of the fake and the source.
  EXPECT_NEAR(static_cast<double>(stamped), static_cast<double>(cupti_now + 3'600'000'000'000), 1e6);
  EXPECT_NEAR(static_cast<double>(stamped), static_cast<double>(collectorNowNs()), 1e9);
}

TEST_F(HardwareMetricsSourceTest, SamplesStampedOutsideTheRecordingOrWithoutValuesAreCountedNotStored) {
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  const std::int64_t t = collectorNowNs();
  PmDecode decoded;
  decoded.samples = {sample(t, 1, 1), sample(t - 3'600'000'000'000, 50, 50), sample(t, NAN, 1), sample(t, 30, 60)};
  decoded.samples[0].values.pop_back();  // the dropped first one may be anything
  decoded.overflow = true;
  fake_.decodes.push_back(decoded);
  source->drain(sink_);

  EXPECT_EQ(sink_.trace.metric_samples.size(), 2u);
  EXPECT_EQ(sink_.lostCount(kLostOffClockSamples), 1u);
  EXPECT_EQ(sink_.lostCount(kLostUnusableSamples), 1u);
  EXPECT_EQ(sink_.lostCount(kLostSampleOverflow), 1u);
}

TEST_F(HardwareMetricsSourceTest, DecodesUntilCuptiSaysItsBufferIsDrained) {
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  const std::int64_t t = collectorNowNs();
  fake_.decodes.push_back({{sample(t, 1, 1), sample(t, 2, 2)}, false});
  fake_.decodes.push_back({{sample(t + 100'000, 3, 3)}, true});
  fake_.decodes.push_back({{sample(t + 200'000, 4, 4)}, true});  // for the next drain
  source->drain(sink_);
  EXPECT_EQ(sink_.trace.metric_samples.size(), 4u);
  EXPECT_EQ(fake_.decodes.size(), 1u);
}

TEST_F(HardwareMetricsSourceTest, SamplesEachDeviceOnceWhateverItsContexts) {
  fake_.chips[1] = "GA102";
  fake_.base_metrics["GA102"] = fake_.base_metrics["GH100"];
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  fake_.createContext(FakeCounterProfilerApi::context(2), 0);
  fake_.createContext(FakeCounterProfilerApi::context(3), 1);
  source->drain(sink_);
  fake_.createContext(FakeCounterProfilerApi::context(4), 1);
  source->drain(sink_);
  ASSERT_EQ(fake_.pm_setups.size(), 2u);
  EXPECT_EQ(fake_.pm_setups[1].device, 1u);
  EXPECT_EQ(fake_.pm_setups[1].chip, "GA102");
  EXPECT_EQ(std::count(fake_.calls.begin(), fake_.calls.end(), "initialize"), 1);
}

TEST_F(HardwareMetricsSourceTest, ChipsWithoutTheTimeTriggerSampleOnTheSystemClock) {
  fake_.chips[0] = "GA100";
  fake_.base_metrics["GA100"] = fake_.base_metrics["GH100"];
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  ASSERT_EQ(fake_.pm_setups.size(), 1u);
  EXPECT_FALSE(fake_.pm_setups[0].time_trigger);
  EXPECT_EQ(fake_.pm_setups[0].interval, PmSamplingOptions{}.interval_sysclk_cycles);
  EXPECT_NE(source->describe().find("every 100000 system clock cycles"), std::string::npos) << source->describe();
}

TEST_F(HardwareMetricsSourceTest, RecordsWhatTheChipOffersInOnePassAndSaysWhatItLeftOut) {
  fake_.chips[0] = "AD102";
  fake_.base_metrics["AD102"] = {"sm__pipe_tensor_cycles_active", "sm__cycles_active"};
  fake_.metrics_per_pass = 1;  // the two shares would take two passes
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  ASSERT_EQ(fake_.pm_setups.size(), 1u);
  EXPECT_EQ(fake_.pm_setups[0].metrics, (std::vector<std::string>{kTensorShare}));
}

TEST_F(HardwareMetricsSourceTest, DriverRefusalLeavesTheNoteAndNoSampler) {
  fake_.refuse_availability = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  fake_.createContext(FakeCounterProfilerApi::context(2), 0);  // not asked again
  source->drain(sink_);

  EXPECT_TRUE(fake_.pm_setups.empty());
  EXPECT_TRUE(sink_.trace.metric_samples.empty());
  EXPECT_EQ(sink_.lostCount(kPrivilegeNote), 1u);
  EXPECT_EQ(source->describe(), "unavailable: device 0: the driver allows profiling to admin users only");
  // The note is told once, not at every drain.
  source->drain(sink_);
  EXPECT_EQ(sink_.lostCount(kPrivilegeNote), 1u);
}

TEST_F(HardwareMetricsSourceTest, ChipWithoutTheCountersLeavesANoteNamingIt) {
  fake_.chips[0] = "GV100";
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  ASSERT_EQ(sink_.trace.import_stats.lost.size(), 1u);
  const std::string note = sink_.trace.import_stats.lost.begin()->first;
  EXPECT_EQ(note.rfind("hardware counters: device 0: cuptiProfilerHostInitialize failed: CUPTI_ERROR_NOT_SUPPORTED", 0), 0u)
      << note;
}

TEST_F(HardwareMetricsSourceTest, AnotherToolHoldingCuptisCallbacksFailsTheStartWithTheNote) {
  fake_.refuse_subscribe = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  auto source = HardwareMetricsSource::start(fake_.borrow(), MetricsMode::kSampled, {}, kPid);
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().message.rfind("hardware counters: cuptiSubscribe failed", 0), 0u) << source.error().message;
  EXPECT_NE(source.error().message.find("another tool in the process"), std::string::npos);
}

TEST_F(HardwareMetricsSourceTest, StopDecodesWhatIsLeftThenReleasesTheSampler) {
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(1), 0);
  source->drain(sink_);
  const std::int64_t t = collectorNowNs();
  fake_.decodes.push_back({{sample(t, 1, 1), sample(t, 2, 2)}});
  source->stop();
  source->drain(sink_);
  EXPECT_EQ(sink_.trace.metric_samples.size(), 2u);
  const auto stop = std::find(fake_.calls.begin(), fake_.calls.end(), "pmStop");
  const auto decode = std::find(stop, fake_.calls.end(), "pmDecode");
  const auto release = std::find(fake_.calls.begin(), fake_.calls.end(), "pmRelease");
  ASSERT_NE(release, fake_.calls.end());
  EXPECT_LT(stop, decode);
  EXPECT_LT(decode, release);
  EXPECT_TRUE(fake_.live.empty());
  fake_.createContext(FakeCounterProfilerApi::context(2), 1);  // too late: nothing new starts
  source->drain(sink_);
  EXPECT_EQ(fake_.pm_setups.size(), 1u);
}

TEST_F(HardwareMetricsSourceTest, RangeProfilerRangesAreStoredInOrderWithoutTimes) {
  auto source = start(MetricsMode::kPerKernel);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(7), 0);
  ASSERT_EQ(fake_.range_setups.size(), 1u);
  EXPECT_EQ(fake_.range_setups[0].context, FakeCounterProfilerApi::context(7));
  const std::vector<std::string>& metrics = fake_.range_setups[0].metrics;
  ASSERT_EQ(metrics.size(), 6u);
  EXPECT_EQ(metrics[0], kTensorShare);
  EXPECT_EQ(metrics[5], "sm__inst_executed_pipe_tensor_op_gmma.sum");
  const std::vector<double> six(6, 1.0);
  fake_.collections.push_back({{{"0", six}, {"sm90_xmma_gemm_bf16bf16_bf16f32", {91.0, 2, 3, 4, 5, 6}}}, 0});
  fake_.collections.push_back({{{"2", {0.0, 1, 1, 1, NAN, 1}}}, 3});
  source->drain(sink_);
  source->drain(sink_);

  const auto& ranges = sink_.trace.kernel_metrics;
  ASSERT_EQ(ranges.size(), 3u);
  for (const trace::KernelMetrics& range : ranges) {
    EXPECT_FALSE(range.times_measured);
    EXPECT_EQ(range.pid, kPid);
    EXPECT_EQ(range.correlation_id, 0u);
  }
  EXPECT_EQ(sink_.str(ranges[0].kernel_name), "");  // CUPTI's number names no kernel
  EXPECT_EQ(sink_.str(ranges[1].kernel_name), "sm90_xmma_gemm_bf16bf16_bf16f32");
  ASSERT_EQ(ranges[1].values.size(), 6u);
  EXPECT_EQ(sink_.str(ranges[1].values[0].metric), kTensorShare);
  EXPECT_EQ(ranges[1].values[0].value, 91.0);
  EXPECT_EQ(ranges[2].values.size(), 5u);  // the NaN was not evaluated, so it is not stored
  EXPECT_EQ(sink_.lostCount(kLostDroppedRanges), 3u);
  EXPECT_NE(source->describe().find("kernels run one at a time"), std::string::npos) << source->describe();
}

TEST_F(HardwareMetricsSourceTest, RangesOfAContextAreCollectedBeforeItIsDestroyed) {
  auto source = start(MetricsMode::kPerKernel);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(7), 0);
  fake_.collections.push_back({{{"k", {1, 2, 3, 4, 5, 6}}}, 0});
  fake_.destroyContext(FakeCounterProfilerApi::context(7));
  EXPECT_EQ(fake_.calls.back(), "rangeRelease");
  source->drain(sink_);
  ASSERT_EQ(sink_.trace.kernel_metrics.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernel_metrics[0].kernel_name), "k");
  EXPECT_TRUE(fake_.live.empty());
}

TEST_F(HardwareMetricsSourceTest, ACollectThatFailsKeepsTheRangesEvaluatedBeforeItCountsTheRestAndStops) {
  auto source = start(MetricsMode::kPerKernel);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(7), 0);
  // One range evaluated, then CUPTI failed on the next two (counted as dropped, not stored).
  fake_.collections.push_back({{{"k", {1, 2, 3, 4, 5, 6}}}, 2});
  fake_.refuse_collect = CUPTI_ERROR_UNKNOWN;
  source->drain(sink_);
  source->drain(sink_);
  ASSERT_EQ(sink_.trace.kernel_metrics.size(), 1u);
  EXPECT_EQ(sink_.str(sink_.trace.kernel_metrics[0].kernel_name), "k");
  EXPECT_EQ(sink_.lostCount(kLostDroppedRanges), 2u);
  std::size_t stopped_notes = 0;
  for (const auto& [reason, count] : sink_.trace.import_stats.lost) {
    if (reason.find("the range profiler of device 0 stopped: cuptiProfilerHostEvaluateToGpuValues") != std::string::npos) {
      stopped_notes += count;
    }
  }
  EXPECT_EQ(stopped_notes, 1u);  // told once, however often it is drained
  EXPECT_TRUE(fake_.live.empty()) << "the profiler is released once it has failed";
}

TEST_F(HardwareMetricsSourceTest, RangeProfilerRefusedByTheDriverLeavesTheNote) {
  fake_.refuse_availability = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  auto source = start(MetricsMode::kPerKernel);
  ASSERT_NE(source, nullptr);
  fake_.createContext(FakeCounterProfilerApi::context(7), 0);
  source->drain(sink_);
  EXPECT_TRUE(fake_.range_setups.empty());
  EXPECT_EQ(sink_.lostCount(kPrivilegeNote), 1u);
}

TEST_F(HardwareMetricsSourceTest, WithoutAnyContextItSaysNothingWasRecorded) {
  auto source = start(MetricsMode::kSampled);
  ASSERT_NE(source, nullptr);
  source->stop();
  source->drain(sink_);
  EXPECT_EQ(source->describe().rfind("unavailable: the program created no CUDA context", 0), 0u) << source->describe();
}

TEST(ContextRangeProfilerTest, OnlyARangeNameThatIsNotANumberNamesAKernel) {
  EXPECT_FALSE(rangeNameIsKernel(""));
  EXPECT_FALSE(rangeNameIsKernel("17"));
  EXPECT_TRUE(rangeNameIsKernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
}

}  // namespace
}  // namespace ampscope::collector
