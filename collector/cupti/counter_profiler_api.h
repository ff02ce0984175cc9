#pragma once
// Every call of CUPTI's hardware-counter APIs the collector makes (the callback API for context
// creation, the profiler host API over libnvperf_host for metric names and configuration images,
// PM sampling, the range profiler), behind one interface: RealCounterProfilerApi forwards to
// libcupti, and the tests put a fake in its place that hands back samples and ranges, refuses as
// the driver does, and lists a chip's metrics. What the collector does with them (which metrics,
// which clock, what a refusal leaves in the profile) is then tested on machines without a GPU.
//
// Each call reports CUPTI's result and the function that gave it, so the caller can tell a refusal
// for want of privileges from any other failure. The counter data images CUPTI fills live inside
// the implementation; decoded samples and ranges come out as plain values.
//
// This header includes CUPTI and is meant for collector/cupti and its tests, as cupti_api.h is.

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collector/hardware_metrics.h"

namespace ampscope::collector {

// The outcome of one CUPTI call: CUPTI_SUCCESS, or its error and which function gave it.
struct CounterCall {
  CUptiResult result = CUPTI_SUCCESS;
  std::string call;  // "cuptiPmSamplingEnable", ...
  bool ok() const { return result == CUPTI_SUCCESS; }
};

// A PM sampler or a range profiler the implementation holds; 0 is none.
using CounterHandle = std::uint32_t;

struct PmSamplingSetup {
  std::uint32_t device = 0;
  std::string chip;                        // cuptiDeviceGetChipName
  std::vector<std::uint8_t> availability;  // cuptiPmSamplingGetCounterAvailability's image
  std::vector<std::string> metrics;
  // CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL (interval in ns) where the chip has it, else
  // GPU_SYSCLK_INTERVAL (interval in system clock cycles).
  bool time_trigger = true;
  std::uint64_t interval = 0;
  std::size_t hardware_buffer_bytes = 0;
  std::uint32_t samples_per_decode = 0;  // the counter data image's room
};

// One PM sample as CUPTI gives it: its interval on CUPTI's clock and one value per metric.
struct RawSample {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::vector<double> values;
};

struct PmDecode {
  std::vector<RawSample> samples;  // completed samples, oldest first
  bool drained = true;             // false: the counter data image filled; decode again
  bool overflow = false;           // the hardware buffer overflowed since the last decode
};

struct RangeProfilerSetup {
  CUcontext context = nullptr;
  std::string chip;
  std::vector<std::uint8_t> availability;  // cuptiProfilerGetCounterAvailability's image
  std::vector<std::string> metrics;
  std::size_t max_ranges = 0;  // ranges the counter data image holds between collections
};

// One range of the range profiler: its name (in auto-range mode, CUPTI's name for the launch) and
// one value per metric.
struct RawRange {
  std::string name;
  std::vector<double> values;
};

struct RangeCollection {
  std::vector<RawRange> ranges;  // in the order they were profiled
  std::size_t dropped = 0;       // ranges CUPTI could not keep (the image was full)
};

class CounterProfilerApi {
 public:
  virtual ~CounterProfilerApi() = default;

  // created: true when a context was created, false when one is about to be destroyed.
  using ContextCallback = void (*)(void* user, CUcontext context, bool created);
  // cuptiSubscribe and the resource domain's context created / destroy-starting callbacks. CUPTI
  // has one subscriber per process: another tool in the process makes this fail.
  virtual CounterCall subscribeContexts(ContextCallback callback, void* user) = 0;
  virtual void unsubscribe() = 0;
  virtual CounterCall deviceOf(CUcontext context, std::uint32_t* device) = 0;  // cuptiGetDeviceId

  virtual CounterCall initializeProfiler() = 0;  // cuptiProfilerInitialize
  virtual void deinitializeProfiler() = 0;       // cuptiProfilerDeInitialize
  virtual CounterCall chipName(std::uint32_t device, std::string* chip) = 0;  // cuptiDeviceGetChipName
  // The counters this device can give now; CUPTI_ERROR_INSUFFICIENT_PRIVILEGES where the driver
  // restricts profiling to administrators.
  virtual CounterCall pmCounterAvailability(std::uint32_t device, std::vector<std::uint8_t>* image) = 0;
  virtual CounterCall rangeCounterAvailability(CUcontext context, std::vector<std::uint8_t>* image) = 0;

  // The profiler host API (libnvperf_host through CUPTI): needs no GPU, only the chip's name.
  // The chip's base metrics of every type (counter, ratio, throughput).
  virtual CounterCall baseMetrics(CounterProfiler profiler, const std::string& chip,
                                  const std::vector<std::uint8_t>& availability, std::vector<std::string>* names) = 0;
  // How many passes collecting metrics takes (cuptiProfilerHostGetNumOfPasses of their config image).
  virtual CounterCall passes(CounterProfiler profiler, const std::string& chip,
                             const std::vector<std::uint8_t>& availability, const std::vector<std::string>& metrics,
                             std::size_t* passes) = 0;

  // PM sampling on one device: host object, config image, cuptiPmSamplingEnable, SetConfig, the
  // counter data image, Start.
  virtual CounterCall pmStart(const PmSamplingSetup& setup, CounterHandle* handle) = 0;
  // cuptiPmSamplingDecodeData, then each completed sample's times and values; the image is reset.
  virtual CounterCall pmDecode(CounterHandle handle, PmDecode* decoded) = 0;
  virtual CounterCall pmStop(CounterHandle handle) = 0;
  virtual void pmRelease(CounterHandle handle) = 0;  // Disable and free; after the last decode

  // The range profiler on one context in auto-range mode with kernel replay: one range per kernel.
  virtual CounterCall rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) = 0;
  // Stop, decode, each range's name and values, reset the image; Start again when restart.
  virtual CounterCall rangeCollect(CounterHandle handle, bool restart, RangeCollection* collected) = 0;
  virtual void rangeRelease(CounterHandle handle) = 0;  // Disable and free

  virtual std::uint64_t timestamp() = 0;  // cuptiGetTimestamp
  virtual std::string resultString(CUptiResult result) = 0;
};

}  // namespace ampscope::collector
