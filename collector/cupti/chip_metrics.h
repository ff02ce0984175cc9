#pragma once
// What the PM sampler and the range profiler do alike before either starts: the chip's metrics
// chosen with CUPTI's pass counts, and a failed CUPTI call put in words.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collector/cupti/counter_profiler_api.h"
#include "collector/hardware_metrics.h"

namespace ampscope::collector {

// Why a device or context could not be profiled: CUPTI's call, and the refusal in words.
struct CounterFailure {
  CounterCall call;
  std::string message;  // "cuptiPmSamplingEnable failed: CUPTI_ERROR_...": for the profile's note
};

// "cuptiPmSamplingEnable failed: CUPTI_ERROR_NOT_SUPPORTED (801)".
std::string failureText(CounterProfilerApi& api, const CounterCall& call);

// The metrics `profiler` would record on `chip` with the counters `availability` gives: the chip's
// base metrics, then chooseMetrics with CUPTI's pass counts. False, with *failure set, where a
// call fails or the chip offers none of the candidates (`recorder` names what would have recorded
// them: "PM sampling", "the range profiler").
bool chooseChipMetrics(CounterProfilerApi& api, CounterProfiler profiler, const std::string& chip,
                       const std::vector<std::uint8_t>& availability, std::string_view recorder, MetricChoice* choice,
                       CounterFailure* failure);

}  // namespace ampscope::collector
