#include "analyzer/correlate/iterations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "analyzer/core/operator_labels.h"
#include "analyzer/normalise/phase_rules.h"

namespace ampscope::analyzer {

namespace {

using trace::Phase;
using trace::Range;
using trace::RangeKind;

bool isHostRange(const Range& range) { return range.kind != RangeKind::kGpuAnnotation; }

// A step known by its host range; placeOnTimeline gives it its timeline span.
Iteration onTheHost(std::int64_t number, std::int64_t start_ns, std::int64_t end_ns) {
  return {.number = number, .start_ns = start_ns, .end_ns = end_ns, .warmup = false,
          .host_start_ns = start_ns, .host_end_ns = end_ns};
}

std::vector<Iteration> fromStepRanges(const trace::Trace& trace) {
  std::vector<Iteration> out;
  for (const Range& range : trace.ranges) {
    // A mark named like a step (no duration) is not a step.
    if (range.phase != Phase::kStep || !isHostRange(range) || range.end_ns <= range.start_ns) continue;
    out.push_back(onTheHost(stepNumberFromName(opName(trace, range)), range.start_ns, range.end_ns));
  }
  return out;
}

// One iteration per occurrence of a range that runs once per step: from one start to the next.
std::vector<Iteration> fromPeriod(const std::vector<const Range*>& occurrences) {
  std::vector<Iteration> out;
  for (std::size_t i = 0; i + 1 < occurrences.size(); ++i) {
    out.push_back(onTheHost(static_cast<std::int64_t>(i), occurrences[i]->start_ns, occurrences[i + 1]->start_ns));
  }
  return out;
}

// The outermost data-loading or optimizer ranges, grouped by name; the name that repeats most
// (at least three times) marks the steps.
std::vector<Iteration> fromRepeatingRanges(const trace::Trace& trace, std::string& source) {
  std::map<std::string_view, std::vector<const Range*>> by_name;
  for (const Range& range : trace.ranges) {
    if (!isHostRange(range) || (range.phase != Phase::kData && range.phase != Phase::kOptimizer)) continue;
    const bool outermost_of_phase = range.parent == trace::kNone ||
                                    trace.ranges[static_cast<std::size_t>(range.parent)].phase != range.phase;
    if (!outermost_of_phase) continue;
    // Kineto numbers each call of a recurring function: "Optimizer.step#SGD.step" stays the same,
    // "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" too. emit_nvtx text gives
    // each call its own op id, so the normalised op name is what repeats.
    by_name[opName(trace, range)].push_back(&range);
  }
  const std::vector<const Range*>* best = nullptr;
  std::string_view best_name;
  for (const auto& [name, occurrences] : by_name) {
    if (occurrences.size() >= 3 && (!best || occurrences.size() > best->size())) {
      best = &occurrences;
      best_name = name;
    }
  }
  if (!best) return {};
  source = fmt::format("period of '{}'", best_name);
  return fromPeriod(*best);
}

// Each step's span on the timeline (Iteration): the GPU records launched inside its host range
// say how long after that range its work ran. Iterations are sorted by host start and their host
// ranges do not overlap (step ranges follow each other; periods touch).
void placeOnTimeline(const trace::Trace& trace, std::vector<Iteration>& iterations) {
  std::vector<std::int64_t> gpu_end(iterations.size(), std::numeric_limits<std::int64_t>::min());
  const auto note = [&](trace::Index launch, std::int64_t end_ns) {
    if (launch == trace::kNone) return;
    const std::int64_t asked = trace.launches[static_cast<std::size_t>(launch)].start_ns;
    const auto after = std::upper_bound(iterations.begin(), iterations.end(), asked,
                                        [](std::int64_t t, const Iteration& it) { return t < it.host_start_ns; });
    if (after == iterations.begin() || asked >= (after - 1)->host_end_ns) return;
    std::int64_t& end = gpu_end[static_cast<std::size_t>(after - 1 - iterations.begin())];
    end = std::max(end, end_ns);
  };
  for (const trace::Kernel& kernel : trace.kernels) note(kernel.launch, kernel.end_ns);
  for (const trace::MemoryOp& op : trace.memory_ops) note(op.launch, op.end_ns);
  std::int64_t previous_end = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    Iteration& it = iterations[i];
    it.start_ns = std::max(it.host_start_ns, previous_end);
    it.end_ns = std::max({it.host_end_ns, gpu_end[i], it.start_ns});
    previous_end = it.end_ns;
  }
}

void markWarmup(IterationSummary& summary) {
  std::vector<Iteration>& iterations = summary.iterations;
  if (iterations.size() < 3) return;
  // The first step pays for allocator growth, cuDNN autotuning and lazy initialisation; later
  // leading steps count as warm-up while they stay far above the typical step.
  std::vector<std::int64_t> durations;
  for (std::size_t i = 1; i < iterations.size(); ++i) durations.push_back(iterations[i].durationNs());
  std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2), durations.end());
  const double median = static_cast<double>(durations[durations.size() / 2]);
  iterations[0].warmup = true;
  summary.warmup_count = 1;
  for (std::size_t i = 1; i + 2 < iterations.size(); ++i) {
    if (static_cast<double>(iterations[i].durationNs()) <= 1.5 * median) break;
    iterations[i].warmup = true;
    ++summary.warmup_count;
  }
}

void computeSteadyStatistics(IterationSummary& summary) {
  double sum = 0;
  double host_sum = 0;
  double sum_squares = 0;
  std::int64_t minimum = 0;
  std::int64_t maximum = 0;
  std::size_t count = 0;
  for (const Iteration& iteration : summary.iterations) {
    if (iteration.warmup) continue;
    const std::int64_t d = iteration.durationNs();
    minimum = count == 0 ? d : std::min(minimum, d);
    maximum = count == 0 ? d : std::max(maximum, d);
    sum += static_cast<double>(d);
    host_sum += static_cast<double>(iteration.host_end_ns - iteration.host_start_ns);
    sum_squares += static_cast<double>(d) * static_cast<double>(d);
    ++count;
  }
  if (count == 0) return;
  const double mean = sum / static_cast<double>(count);
  const double variance = std::max(0.0, sum_squares / static_cast<double>(count) - mean * mean);
  summary.steady_mean_ns = std::llround(mean);
  summary.steady_host_mean_ns = std::llround(host_sum / static_cast<double>(count));
  summary.steady_stddev_ns = std::llround(std::sqrt(variance));
  summary.steady_min_ns = minimum;
  summary.steady_max_ns = maximum;
}

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> IterationSummary::steadyWindow(StepClock clock) const {
  std::optional<std::pair<std::int64_t, std::int64_t>> window;
  for (const Iteration& it : iterations) {
    if (it.warmup) continue;
    if (!window) window = std::pair{it.startOn(clock), it.endOn(clock)};
    window->first = std::min(window->first, it.startOn(clock));
    window->second = std::max(window->second, it.endOn(clock));
  }
  if (window && window->first >= window->second) window.reset();
  return window;
}

bool hostRanAhead(const IterationSummary& summary) {
  return summary.steadyCount() > 0 &&
         static_cast<double>(summary.steady_host_mean_ns) < 0.95 * static_cast<double>(summary.steady_mean_ns);
}

SteadySpans::SteadySpans(const IterationSummary& summary, StepClock clock) {
  for (const Iteration& it : summary.iterations) {
    if (!it.warmup && it.startOn(clock) < it.endOn(clock)) spans_.emplace_back(it.startOn(clock), it.endOn(clock));
  }
  std::sort(spans_.begin(), spans_.end());
  // Overlapping or touching spans merge into their union.
  std::size_t kept = 0;
  for (const auto& span : spans_) {
    if (kept > 0 && span.first <= spans_[kept - 1].second) {
      spans_[kept - 1].second = std::max(spans_[kept - 1].second, span.second);
    } else {
      spans_[kept++] = span;
    }
  }
  spans_.resize(kept);
}

bool SteadySpans::contains(std::int64_t time_ns) const {
  // The last span starting at or before time_ns is the only one that can hold it.
  const auto after = std::upper_bound(spans_.begin(), spans_.end(), time_ns,
                                      [](std::int64_t t, const auto& span) { return t < span.first; });
  return after != spans_.begin() && time_ns < (after - 1)->second;
}

IterationSummary findIterations(const trace::Trace& trace) {
  IterationSummary summary;
  summary.iterations = fromStepRanges(trace);
  if (!summary.iterations.empty()) {
    summary.source = "step ranges";
  } else {
    summary.iterations = fromRepeatingRanges(trace, summary.source);
  }
  if (summary.iterations.empty()) {
    summary.source = "none found (no step ranges and no range repeating once per step)";
    return summary;
  }
  std::sort(summary.iterations.begin(), summary.iterations.end(),
            [](const Iteration& a, const Iteration& b) { return a.host_start_ns < b.host_start_ns; });
  placeOnTimeline(trace, summary.iterations);
  markWarmup(summary);
  computeSteadyStatistics(summary);
  return summary;
}

}  // namespace ampscope::analyzer
