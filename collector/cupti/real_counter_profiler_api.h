#pragma once
// CounterProfilerApi on libcupti (which loads libnvperf_host for metric names and configuration
// images when first asked). The host-side calls (baseMetrics, passes) work without a GPU or
// driver; the others fail with CUPTI's error where there is none. Not thread-safe by itself: the
// HardwareMetricsSource serialises its calls.

#include <map>
#include <memory>

#include "collector/cupti/counter_profiler_api.h"

namespace ampscope::collector {

class RealCounterProfilerApi final : public CounterProfilerApi {
 public:
  RealCounterProfilerApi();
  ~RealCounterProfilerApi() override;

  CounterCall subscribeContexts(ContextCallback callback, void* user) override;
  void unsubscribe() override;
  CounterCall deviceOf(CUcontext context, std::uint32_t* device) override;
  CounterCall initializeProfiler() override;
  void deinitializeProfiler() override;
  CounterCall chipName(std::uint32_t device, std::string* chip) override;
  CounterCall pmCounterAvailability(std::uint32_t device, std::vector<std::uint8_t>* image) override;
  CounterCall rangeCounterAvailability(CUcontext context, std::vector<std::uint8_t>* image) override;
  CounterCall baseMetrics(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                          std::vector<std::string>* names) override;
  CounterCall passes(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                     const std::vector<std::string>& metrics, std::size_t* passes) override;
  CounterCall pmStart(const PmSamplingSetup& setup, CounterHandle* handle) override;
  CounterCall pmDecode(CounterHandle handle, PmDecode* decoded) override;
  CounterCall pmStop(CounterHandle handle) override;
  void pmRelease(CounterHandle handle) override;
  CounterCall rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) override;
  CounterCall rangeCollect(CounterHandle handle, bool restart, RangeCollection* collected) override;
  void rangeRelease(CounterHandle handle) override;
  std::uint64_t timestamp() override;
  std::string resultString(CUptiResult result) override;

  struct Subscription;  // CUPTI's subscriber and the callback it forwards to
  struct PmSampler;     // a PM sampling object with its host object and images
  struct RangeProfiler; // a range profiler object with its host object and images

 private:
  std::unique_ptr<Subscription> subscription_;
  std::map<CounterHandle, std::unique_ptr<PmSampler>> samplers_;
  std::map<CounterHandle, std::unique_ptr<RangeProfiler>> profilers_;
  CounterHandle next_handle_ = 1;
};

}  // namespace ampscope::collector
