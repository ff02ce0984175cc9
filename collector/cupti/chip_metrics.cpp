#include "collector/cupti/chip_metrics.h"

#include <set>

#include <fmt/format.h>

namespace ampscope::collector {

std::string failureText(CounterProfilerApi& api, const CounterCall& call) {
  return fmt::format("{} failed: {} ({})", call.call, api.resultString(call.result), static_cast<int>(call.result));
}

bool chooseChipMetrics(CounterProfilerApi& api, CounterProfiler profiler, const std::string& chip,
                       const std::vector<std::uint8_t>& availability, std::string_view recorder, MetricChoice* choice,
                       CounterFailure* failure) {
  std::vector<std::string> names;
  if (CounterCall call = api.baseMetrics(profiler, chip, availability, &names); !call.ok()) {
    *failure = {call, failureText(api, call)};
    return false;
  }
  const std::set<std::string, std::less<>> base(names.begin(), names.end());
  *choice = chooseMetrics(profiler, base, [&](const std::vector<std::string>& metrics) -> trace::Result<std::size_t> {
    std::size_t passes = 0;
    const CounterCall call = api.passes(profiler, chip, availability, metrics, &passes);
    if (!call.ok()) return trace::Error{failureText(api, call)};
    return passes;
  });
  if (choice->metrics.empty()) {
    *failure = {{CUPTI_ERROR_NOT_SUPPORTED, "cuptiProfilerHostGetBaseMetrics"},
                fmt::format("the {} offers none of the metrics {} would record: {}", chip, recorder,
                            fmt::join(choice->left_out, "; "))};
    return false;
  }
  return true;
}

}  // namespace ampscope::collector
