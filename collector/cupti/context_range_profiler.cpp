#include "collector/cupti/context_range_profiler.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "collector/activity_sink.h"
#include "collector/cupti/chip_metrics.h"

namespace ampscope::collector {

namespace {

}  // namespace

bool rangeNameIsKernel(std::string_view name) {
  return !name.empty() && !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::unique_ptr<ContextRangeProfiler> ContextRangeProfiler::start(CounterProfilerApi& api, CUcontext context,
                                                                  std::uint32_t device, std::int64_t pid,
                                                                  std::size_t max_ranges, Failure* failure) {
  std::unique_ptr<ContextRangeProfiler> profiler(new ContextRangeProfiler(api, context, device, pid));
  const auto fail = [&](const CounterCall& call) -> std::unique_ptr<ContextRangeProfiler> {
    *failure = {call, failureText(api, call)};
    return nullptr;
  };
  RangeProfilerSetup setup;
  setup.context = context;
  setup.max_ranges = max_ranges;
  if (CounterCall call = api.chipName(device, &setup.chip); !call.ok()) return fail(call);
  profiler->chip_ = setup.chip;
  if (CounterCall call = api.rangeCounterAvailability(context, &setup.availability); !call.ok()) return fail(call);
  MetricChoice choice;
  const bool chosen = chooseChipMetrics(api, CounterProfiler::kRangeProfiler, setup.chip, setup.availability,
                                        "the range profiler", &choice, failure);
  profiler->left_out_ = choice.left_out;
  if (!chosen) return nullptr;
  setup.metrics = choice.metrics;
  profiler->metrics_ = choice.metrics;
  if (CounterCall call = api.rangeStart(setup, &profiler->handle_); !call.ok()) return fail(call);
  return profiler;
}

ContextRangeProfiler::~ContextRangeProfiler() {
  if (handle_ != 0) api_.rangeRelease(handle_);
}

void ContextRangeProfiler::collect(bool restart) {
  if (handle_ == 0) return;
  RangeCollection collection;
  const CounterCall call = api_.rangeCollect(handle_, restart, &collection);
  if (!call.ok()) {
    // What CUPTI gave before the failure stays; the profiler ends here.
    if (collect_error_.empty()) collect_error_ = failureText(api_, call);
    restart = false;
  }
  for (RawRange& range : collection.ranges) collected_.push_back(std::move(range));
  dropped_ += collection.dropped;
  if (!restart) {
    api_.rangeRelease(handle_);
    handle_ = 0;
  }
}

void ContextRangeProfiler::drain(ActivitySink& sink) {
  std::vector<trace::StringId> metric_ids;
  for (const std::string& metric : metrics_) metric_ids.push_back(sink.intern(metric));
  for (const RawRange& range : collected_) {
    trace::KernelMetrics row;
    row.times_measured = false;
    row.device = device_;
    row.pid = pid_;
    if (rangeNameIsKernel(range.name)) row.kernel_name = sink.intern(range.name);
    // A value CUPTI could not evaluate (NaN, inf) is left out rather than stored as a number.
    for (std::size_t i = 0; i < metric_ids.size() && i < range.values.size(); ++i) {
      if (std::isfinite(range.values[i])) row.values.push_back({metric_ids[i], range.values[i]});
    }
    sink.kernelMetrics(row);
  }
  collected_.clear();
  if (dropped_ > 0) sink.lost(kLostDroppedRanges, dropped_);
  dropped_ = 0;
  if (!collect_error_.empty() && !collect_error_told_) {
    sink.lost(hardwareCounterNote(fmt::format("the range profiler of device {} stopped: {}", device_, collect_error_)), 1);
    collect_error_told_ = true;
  }
}

}  // namespace ampscope::collector
