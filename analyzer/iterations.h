#pragma once
// Training iterations: from step ranges (PyTorch's ProfilerStep#N, the trainer's "step N"), or,
// where a trace has none, from the period of a range that repeats once per step (the data
// loader's next(), the optimizer step). Warm-up steps are set apart from the steady state.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct Iteration {
  std::int64_t number = -1;  // as the trace numbers it (ProfilerStep#N), else the position
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool warmup = false;
  std::int64_t durationNs() const { return end_ns - start_ns; }
};

struct IterationSummary {
  std::string source;  // "step ranges (ProfilerStep#N)", "period of 'Optimizer.step#SGD.step'", ...
  std::vector<Iteration> iterations;
  std::size_t warmup_count = 0;
  std::int64_t steady_mean_ns = 0;
  std::int64_t steady_stddev_ns = 0;
  std::int64_t steady_min_ns = 0;
  std::int64_t steady_max_ns = 0;

  std::size_t steadyCount() const { return iterations.size() - warmup_count; }
  // True when time_ns falls inside a steady (non-warm-up) iteration.
  bool inSteadyIteration(std::int64_t time_ns) const;
  // From the first steady iteration's start to the last one's end; nullopt without steady ones.
  std::optional<std::pair<std::int64_t, std::int64_t>> steadyWindow() const;
};

// The steady iterations as disjoint spans in time order, for asking of many times (one per kernel)
// whether they fall in one: a binary search where IterationSummary::inSteadyIteration scans.
class SteadySpans {
 public:
  explicit SteadySpans(const IterationSummary& summary);
  // The same answer as summary.inSteadyIteration(time_ns).
  bool contains(std::int64_t time_ns) const;

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> spans_;  // [start, end), disjoint, sorted
};

// Expects a correlated trace (phases known).
IterationSummary findIterations(const trace::Trace& trace);

}  // namespace ampscope::analyzer
