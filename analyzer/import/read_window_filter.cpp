#include "analyzer/import/read_window_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/normalise/phase_rules.h"

namespace ampscope::analyzer::import {

namespace {

constexpr double kNsPerSecond = 1e9;

// The earliest start of any record: where a trace that does not say when recording began starts.
std::int64_t firstRecordNs(const trace::Trace& t) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  const auto earliest = [&](const auto& records) {
    for (const auto& r : records) first = std::min(first, r.start_ns);
  };
  earliest(t.kernels);
  earliest(t.launches);
  earliest(t.ranges);
  earliest(t.memory_ops);
  earliest(t.synchronizations);
  return first == std::numeric_limits<std::int64_t>::max() ? 0 : first;
}

std::int64_t secondsToNs(double seconds) {
  const double ns = std::round(seconds * kNsPerSecond);
  return ns >= static_cast<double>(std::numeric_limits<std::int64_t>::max()) ? std::numeric_limits<std::int64_t>::max()
                                                                             : static_cast<std::int64_t>(ns);
}

// A record overlaps the span where it starts before the span's end and ends after its start, or
// is an instant inside it (the Nsight Systems importer's queries keep the same).
bool overlaps(std::int64_t start_ns, std::int64_t end_ns, const trace::ReadSpan& span) {
  if (start_ns >= span.end_ns) return false;
  return end_ns > span.start_ns || (end_ns == start_ns && start_ns >= span.start_ns);
}

template <typename Record>
std::uint64_t keepOverlapping(std::vector<Record>& records, const trace::ReadSpan& span) {
  return std::erase_if(records, [&](const Record& r) { return !overlaps(r.start_ns, r.end_ns, span); });
}

template <typename Record>
std::uint64_t keepInstants(std::vector<Record>& records, const trace::ReadSpan& span) {
  return std::erase_if(records, [&](const Record& r) { return r.time_ns < span.start_ns || r.time_ns >= span.end_ns; });
}

}  // namespace

trace::Result<trace::ReadSpan> spanOfSteps(const std::vector<StepRange>& steps, const StepWindow& window,
                                           const std::string& path) {
  const std::string asked = readWindowText(window);
  if (steps.empty()) {
    return trace::Error{fmt::format("{}: --window {}: the trace has no step ranges (ProfilerStep#N, step N) to count "
                                    "steps by; give the window in seconds (START:END)", path, asked)};
  }
  trace::ReadSpan span{.start_ns = std::numeric_limits<std::int64_t>::max(),
                       .end_ns = std::numeric_limits<std::int64_t>::min(), .asked = asked};
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  std::int64_t highest = std::numeric_limits<std::int64_t>::min();
  for (const StepRange& step : steps) {
    lowest = std::min(lowest, step.number);
    highest = std::max(highest, step.number);
    if (step.number < window.first || step.number > window.last) continue;
    span.start_ns = std::min(span.start_ns, step.start_ns);
    span.end_ns = std::max(span.end_ns, step.end_ns);
  }
  if (span.end_ns < span.start_ns) {
    return trace::Error{fmt::format("{}: --window {}: no step ranges numbered so; the trace's are numbered {} to {}",
                                    path, asked, lowest, highest)};
  }
  return span;
}

trace::Result<trace::ReadSpan> windowSpan(const trace::Trace& trace, const ReadWindow& window, const std::string& path) {
  if (const auto* steps = std::get_if<StepWindow>(&window)) {
    std::vector<StepRange> found;
    for (const trace::Range& r : trace.ranges) {
      if (r.phase != trace::Phase::kStep || r.end_ns <= r.start_ns) continue;  // a mark is no step
      const std::int64_t number =
          stepNumberFromName(trace.str(r.op != trace::StringTable::kEmpty ? r.op : r.name));
      if (number >= 0) found.push_back({number, r.start_ns, r.end_ns});
    }
    return spanOfSteps(found, *steps, path);
  }
  return spanOfSeconds(std::get<SecondsWindow>(window), trace.epoch_offset_ns ? 0 : firstRecordNs(trace));
}

trace::ReadSpan spanOfSeconds(const SecondsWindow& window, std::int64_t zero_ns) {
  // Saturating: a clock that starts far from 0 (Kineto's, from the epoch) plus a large END.
  constexpr std::int64_t kLatest = std::numeric_limits<std::int64_t>::max();
  const auto at = [&](double seconds) {
    const std::int64_t ns = secondsToNs(seconds);
    return zero_ns > 0 && ns > kLatest - zero_ns ? kLatest : zero_ns + ns;
  };
  return {.start_ns = at(window.from_s), .end_ns = at(window.to_s), .asked = readWindowText(window)};
}

void keepWindow(trace::Trace& trace, const trace::ReadSpan& span) {
  std::uint64_t left_out = 0;
  left_out += keepOverlapping(trace.kernels, span);
  left_out += keepOverlapping(trace.launches, span);
  left_out += keepOverlapping(trace.memory_ops, span);
  left_out += keepOverlapping(trace.synchronizations, span);
  left_out += keepOverlapping(trace.kernel_metrics, span);
  left_out += keepOverlapping(trace.metric_samples, span);
  left_out += keepInstants(trace.memory_events, span);
  left_out += keepInstants(trace.counters, span);
  left_out += keepInstants(trace.gradient_bins, span);
  // A communication message goes with its range, which it names by thread and start.
  std::set<std::pair<trace::Index, std::int64_t>> kept_ranges;
  left_out += std::erase_if(trace.ranges, [&](const trace::Range& r) {
    const bool out = !overlaps(r.start_ns, r.end_ns, span);
    if (!out && !trace.communication_messages.empty()) kept_ranges.emplace(r.thread, r.start_ns);
    return out;
  });
  std::erase_if(trace.communication_messages, [&](const trace::CommunicationMessage& m) {
    return kept_ranges.count({m.thread, m.start_ns}) == 0;
  });
  if (left_out > 0) trace.import_stats.skipped[fmt::format("records outside --window {} (left out)", span.asked)] += left_out;
  trace.read_window = span;
}

trace::Status keepWindowOfTrace(trace::Trace& trace, const trace::ReadSpan& span, const std::string& path) {
  const bool had_records = trace.eventCount() > 0;
  const std::int64_t first_ns = firstRecordNs(trace);
  std::int64_t last_ns = first_ns;
  const auto latest = [&](const auto& records) {
    for (const auto& r : records) last_ns = std::max(last_ns, r.end_ns);
  };
  latest(trace.kernels);
  latest(trace.launches);
  latest(trace.ranges);
  latest(trace.memory_ops);
  latest(trace.synchronizations);
  keepWindow(trace, span);
  if (!had_records || trace.eventCount() > 0) return {};
  const std::int64_t zero = trace.epoch_offset_ns ? 0 : first_ns;
  return trace::Error{fmt::format("{}: --window {}: no records in it; the recording runs from {:.3f} s to {:.3f} s",
                                  path, span.asked, static_cast<double>(first_ns - zero) / kNsPerSecond,
                                  static_cast<double>(last_ns - zero) / kNsPerSecond)};
}

}  // namespace ampscope::analyzer::import
