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

// A step has two spans. Where the GPU keeps up with the host (a step ends by waiting for its
// results, as most loops that log the loss do), they are the same. Where the host runs ahead (a
// launch queue deep enough to hold a step's work), a step's kernels run after its host range has
// ended, during the host ranges of the steps after it.
enum class StepClock {
  kHost,      // the range on the host: where the step asked for its work
  kTimeline,  // where the step's work ran: up to the end of the last GPU work it launched
};

struct Iteration {
  std::int64_t number = -1;  // as the trace numbers it (ProfilerStep#N), else the position
  // On the timeline: from the end of the step before (or this step's host start, after a gap) to
  // the later of its host range's end and the end of the last GPU work launched inside it. Step
  // times and the GPU's time per step are measured here.
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool warmup = false;
  // The step's range on the host (the step range, or one period of a repeating range). A GPU
  // record belongs to the step whose host range holds the API call that launched it.
  std::int64_t host_start_ns = 0;
  std::int64_t host_end_ns = 0;

  std::int64_t durationNs() const { return end_ns - start_ns; }
  std::int64_t startOn(StepClock clock) const { return clock == StepClock::kHost ? host_start_ns : start_ns; }
  std::int64_t endOn(StepClock clock) const { return clock == StepClock::kHost ? host_end_ns : end_ns; }
};

struct IterationSummary {
  std::string source;  // "step ranges (ProfilerStep#N)", "period of 'Optimizer.step#SGD.step'", ...
  std::vector<Iteration> iterations;
  std::size_t warmup_count = 0;
  // Of the steady steps' durations on the timeline.
  std::int64_t steady_mean_ns = 0;
  std::int64_t steady_stddev_ns = 0;
  std::int64_t steady_min_ns = 0;
  std::int64_t steady_max_ns = 0;
  // The mean of the steady steps' host ranges: below steady_mean_ns where the host ran ahead.
  std::int64_t steady_host_mean_ns = 0;

  std::size_t steadyCount() const { return iterations.size() - warmup_count; }
  // From the first steady iteration's start to the last one's end on that clock; nullopt without
  // steady ones.
  std::optional<std::pair<std::int64_t, std::int64_t>> steadyWindow(StepClock clock) const;
};

// The steady steps' host ranges are over 5% shorter than their timeline spans: the GPU ran their
// work after the host had moved on, so the step time is the GPU's, not the host range's.
bool hostRanAhead(const IterationSummary& summary);

// The steady iterations on one clock as disjoint spans in time order, for asking of many times
// (one per kernel) whether they fall in one.
class SteadySpans {
 public:
  SteadySpans(const IterationSummary& summary, StepClock clock);
  bool contains(std::int64_t time_ns) const;

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> spans_;  // [start, end), disjoint, sorted
};

// Expects a correlated trace (phases known, GPU records linked to their launches).
IterationSummary findIterations(const trace::Trace& trace);

}  // namespace ampscope::analyzer
