#include "analyzer/correlate/launch_lookup.h"

#include <algorithm>

namespace ampscope::analyzer {

namespace {

// A table holds up to this many slots per launch (plus a few): ids from one counter, with gaps
// for the API calls a profiler numbered but did not record (a slot costs a sixth of a sorted entry).
constexpr std::uint64_t kSlotsPerLaunch = 16;
constexpr std::uint64_t kExtraSlots = 1024;

}  // namespace

LaunchLookup::LaunchLookup(const trace::Trace& trace) : trace_(trace) {
  if (trace.launches.empty()) return;
  const auto [lowest, highest] = std::minmax_element(
      trace.launches.begin(), trace.launches.end(),
      [](const trace::LaunchCall& a, const trace::LaunchCall& b) { return a.correlation_id < b.correlation_id; });
  const std::uint64_t span = highest->correlation_id - lowest->correlation_id;
  if (span < kSlotsPerLaunch * trace.launches.size() + kExtraSlots) {
    first_id_ = lowest->correlation_id;
    table_.assign(span + 1, trace::kNone);
  }
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    const trace::LaunchCall& launch = trace.launches[i];
    const Entry entry{launch.correlation_id, trace.pidOfThread(launch.thread), static_cast<trace::Index>(i)};
    if (inTable(entry.correlation_id)) addToTable(entry);
    else shared_.push_back(entry);
  }
  std::sort(shared_.begin(), shared_.end());
}

std::int64_t LaunchLookup::pidOf(trace::Index launch) const {
  return trace_.pidOfThread(trace_.launches[static_cast<std::size_t>(launch)].thread);
}

void LaunchLookup::addToTable(const Entry& entry) {
  trace::Index& slot = table_[entry.correlation_id - first_id_];
  if (slot == trace::kNone) {
    slot = entry.launch;
  } else if (slot == kShared) {
    shared_.push_back(entry);
  } else if (pidOf(slot) != entry.pid) {
    // A second process used the id: both are looked up among the shared ids from now on.
    shared_.push_back({entry.correlation_id, pidOf(slot), slot});
    shared_.push_back(entry);
    slot = kShared;
  }
  // Else a later launch of the same process with the id: the earliest one is kept.
}

trace::Index LaunchLookup::find(std::int64_t pid, std::uint64_t correlation_id) const {
  if (!inTable(correlation_id)) return findShared(pid, correlation_id);
  const trace::Index launch = table_[correlation_id - first_id_];
  if (launch == kShared) return findShared(pid, correlation_id);
  if (launch == trace::kNone) return trace::kNone;
  return pid == trace::kUnknownPid || pid == pidOf(launch) ? launch : trace::kNone;
}

trace::Index LaunchLookup::findShared(std::int64_t pid, std::uint64_t correlation_id) const {
  const auto [first, last] =
      std::equal_range(shared_.begin(), shared_.end(), Entry{correlation_id, 0, 0},
                       [](const Entry& a, const Entry& b) { return a.correlation_id < b.correlation_id; });
  if (first == last) return trace::kNone;
  if (pid == trace::kUnknownPid) return first->pid == (last - 1)->pid ? first->launch : trace::kNone;
  const auto found = std::find_if(first, last, [&](const Entry& e) { return e.pid == pid; });
  return found == last ? trace::kNone : found->launch;
}

}  // namespace ampscope::analyzer
