#pragma once
// Kineto's two forms of hardware counters (docs/formats/kineto.md, "Hardware counters"):
//   - CUPTI range-profiler events, `"ph": "X", "cat": "cuda_profiler_range"` (CuptiRangeProfiler,
//     2021 to its removal in 2026): one per profiled range, named after the kernel it measured,
//     with one args member per metric. In auto-range mode (CUPTI_PROFILER_ENABLE_PER_KERNEL) CUPTI
//     serialises the launches and measures each in its own range, in launch order; Kineto names
//     range i after the i-th launch it tracked on that device, "__missing__" where CUPTI gave the
//     launch no symbol name, and CUPTI's own description, the range's index ("17"), past the
//     launches it tracked. Its ts and dur are placeholders: the profiler's span split evenly among
//     the ranges. In user-range mode one range, "__profile__", covers the whole session.
//   - CUPTI PM-sampling counter events, `"ph": "C", "cat": "hardware_counters"` (Kineto 2026+,
//     CuptiPMSamplingProfiler): one per metric per sample, on a track whose pid is the label
//     "GPU <device> Counters", the value in args under the empty key, the sample's start as ts.
//
// The event loop keeps these events' args as text (MetricArg); this file turns them into the trace
// model's records, so that the rules are testable without a JSON parser.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analyzer/import/kineto/kineto_memory_event.h"
#include "trace/string_table.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// The categories whose args the event loop keeps as MetricArgs.
bool holdsMetricArgs(std::string_view cat);

// One args member of such an event: its key and its value's text.
struct MetricArg {
  std::string_view key;
  JsonScalar value;
};

// A metric's value: a finite number, written as a number or as a string that holds one. Kineto
// formats each value with fmt, which writes a value CUPTI could not evaluate as `nan` or `inf`
// (not JSON, but one token each): those, like any other type, are no number.
std::optional<double> metricNumber(const JsonScalar& value);

// What a range-profiler event's name says it measured.
enum class ProfiledRange : std::uint8_t {
  kKernelLaunch,  // one launch (auto-range mode)
  kWholeSession,  // "__profile__": Kineto's user range around the whole session, no kernel's
};
ProfiledRange profiledRangeOf(std::string_view range_name);

// The kernel name a range's name records: the name itself, or "" where Kineto did not know it
// ("__missing__", or CUPTI's index of the range, which no kernel name can be: identifiers do not
// start with a digit).
std::string_view profiledKernelName(std::string_view range_name);

// Appends each args member that holds a number (metricNumber) as a metric value, its name
// interned in `strings`. Returns how many members held no number (left out).
std::size_t appendMetricValues(std::span<const MetricArg> args, trace::StringTable& strings,
                               std::vector<trace::MetricValue>& values);

// The device a PM-sampling counter track's pid names: "GPU 3 Counters" -> 3; nullopt for any
// other label.
std::optional<std::uint32_t> counterTrackDevice(std::string_view pid_label);

// A PM-sampling counter event's value: the number under args' empty key; nullopt where there is
// none.
std::optional<double> counterSampleValue(std::span<const MetricArg> args);

// A range-profiler event as the event loop read it.
struct ProfilerRangeEvent {
  std::string_view name;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t device = 0;
  std::uint64_t correlation = 0;  // "correlation", written since 2025; 0 before
  std::span<const MetricArg> args;
};

struct ProfilerRangeReading {
  bool whole_session = false;  // no record: the range is no kernel's (kWholeSessionRange)
  std::size_t not_numbers = 0;  // args left out (kRangeValueNotANumber)
};

// Appends the range's KernelMetrics to `out`, its strings interned in `strings`: the times marked
// as placeholders, one value per args member that holds a number.
ProfilerRangeReading readProfilerRange(const ProfilerRangeEvent& range, trace::StringTable& strings,
                                       std::vector<trace::KernelMetrics>& out);

// A PM-sampling counter event as the event loop read it.
struct CounterEvent {
  std::string_view metric;  // the event's name
  bool has_ts = false;
  std::int64_t ts_ns = 0;
  std::string_view pid_label;  // empty where the pid is a number
  std::span<const MetricArg> args;
};

// Appends the event's MetricSample to `out` (without its end: closeSampleIntervals gives it once
// the whole file is read), its metric interned in `strings`. Returns "" when it did, else the
// reason it was left out (one of the kSample... below).
std::string_view readCounterSample(const CounterEvent& counter, trace::StringTable& strings,
                                   std::vector<trace::MetricSample>& out);

// The import_stats reasons these events are counted under.
inline constexpr std::string_view kRangeValueNotANumber =
    "'cuda_profiler_range' metric values that are not numbers (the value is left out, the range kept)";
inline constexpr std::string_view kWholeSessionRange =
    "'cuda_profiler_range' events over the whole session (user-range mode: no kernel's)";
inline constexpr std::string_view kSampleWithoutTime =
    "'hardware_counters' counter events without a readable \"ts\" (left out)";
inline constexpr std::string_view kSampleWithoutGpu =
    "'hardware_counters' counter events whose pid names no GPU (\"GPU <n> Counters\") (left out)";
inline constexpr std::string_view kSampleWithoutMetric =
    "'hardware_counters' counter events without a metric name (left out)";
inline constexpr std::string_view kSampleWithoutValue =
    "'hardware_counters' counter events without a number in args.\"\" (left out)";

}  // namespace ampscope::analyzer::import
