#pragma once
// What `--metrics` asks the collector to record, and which hardware metrics that means on a given
// chip. No CUDA here: the choice is made from the metric names a chip offers (CUPTI's profiler host
// API lists them), so it is tested without a GPU. docs/collector.md says why each metric is there.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/result.h"

namespace ampscope::collector {

enum class MetricsMode : std::uint8_t {
  kNone,
  kSampled,    // `tensor`: CUPTI PM sampling, device-wide samples over time; kernels run as usual
  kPerKernel,  // `tensor:per-kernel`: CUPTI's range profiler, one range per kernel; serialises kernels
};

// "" or "none", "tensor", "tensor:per-kernel"; anything else is an error that lists the choices.
trace::Result<MetricsMode> parseMetricsMode(std::string_view text);
const char* metricsModeName(MetricsMode mode);  // the text parseMetricsMode reads
// The mode `record` passed in the environment (kMetricsVariable); kNone when unset or unreadable.
MetricsMode metricsModeFromEnvironment();

// The two CUPTI profilers, which offer different metrics on the same chip.
enum class CounterProfiler : std::uint8_t { kPmSampling, kRangeProfiler };
const char* counterProfilerName(CounterProfiler profiler);  // "PM sampling", "range profiler"

// One metric the collector would like, by the chip's base metric it is built on.
struct MetricCandidate {
  std::string_view base;    // "sm__pipe_tensor_cycles_active": what the chip must offer
  std::string_view metric;  // "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": what is recorded
};

// The candidates of a profiler, most wanted first.
std::span<const MetricCandidate> metricCandidates(CounterProfiler profiler);

struct MetricChoice {
  std::vector<std::string> metrics;    // to record, in the candidates' order
  std::vector<std::string> left_out;   // "metric (why)", for the profile's note
};

// The candidates the chip offers (base_metrics: its base metric names), taken in order while they
// fit in one pass: PM sampling cannot replay, and each extra pass of the range profiler replays
// every kernel once more. passes(metrics) asks CUPTI how many passes a set needs; a failure of it
// leaves that candidate out with CUPTI's words.
using PassCount = std::function<trace::Result<std::size_t>(const std::vector<std::string>& metrics)>;
MetricChoice chooseMetrics(CounterProfiler profiler, const std::set<std::string, std::less<>>& base_metrics,
                           const PassCount& passes);

// How PM sampling samples a device (collector/cupti/device_sampler.h): here, free of CUDA headers,
// for the options of code that does not include them.
struct PmSamplingOptions {
  // 10 kHz: a sample spans a few kernels of a training step rather than a whole step, and two
  // metrics make 20,000 rows a second, which the writer stores at a small share of a core.
  // (CUPTI's Python collector defaults to 10 us; Kineto to 1 ms.)
  std::uint64_t interval_ns = 100'000;
  // Turing and GA100 have no time trigger, only one on the system clock, whose rate varies; this
  // many cycles are about 0.1 ms at 1 GHz. Each sample carries its own start and end either way.
  std::uint64_t interval_sysclk_cycles = 100'000;
  std::size_t hardware_buffer_bytes = std::size_t{64} << 20;
  std::uint32_t samples_per_decode = 1024;
  // Decodes per drain at most, so a flood of samples cannot hold the writer thread.
  int max_decodes_per_drain = 64;
};

// The profile's notes, as import_stats "lost" reasons, so `record` and `analyze` show them.
inline constexpr std::string_view kPrivilegeNote =
    "hardware counters: the driver allows profiling to admin users only; run as root or set "
    "NVreg_RestrictProfilingToAdminUsers=0 (see docs/collector.md)";
// "hardware counters: <why>" for any other reason no counter could be recorded on a device.
std::string hardwareCounterNote(std::string_view why);

// What `tensor:per-kernel` costs, for the commands to say when they record with it.
inline constexpr std::string_view kPerKernelCost =
    "the range profiler runs each kernel alone (replayed once per pass), so kernels run one at a time and the "
    "profile's kernel times and step times are longer than an unprofiled run's (docs/collector.md)";

// The ampscope_meta key saying what was recorded ("recorded: ...") or why not ("unavailable: ...").
inline constexpr std::string_view kHardwareMetricsMeta = "hardware_metrics";

}  // namespace ampscope::collector
