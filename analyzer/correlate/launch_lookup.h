#pragma once
// Launch calls by (process, correlation id), for linking GPU records to the calls that queued
// them (correlator.h). CUPTI numbers correlations per process, so the same id in two processes of
// one Nsight export names two launches; a record whose process is unknown links only to an id that
// a single process used.

#include <cstdint>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

class LaunchLookup {
 public:
  // The trace must outlive the lookup.
  explicit LaunchLookup(const trace::Trace& trace);
  explicit LaunchLookup(trace::Trace&&) = delete;

  // The earliest launch of process pid with the id; kNone when there is none, or when pid is
  // kUnknownPid and several processes used the id.
  trace::Index find(std::int64_t pid, std::uint64_t correlation_id) const;

 private:
  struct Entry {
    std::uint64_t correlation_id = 0;
    std::int64_t pid = 0;
    trace::Index launch = trace::kNone;
    auto operator<=>(const Entry&) const = default;
  };
  // In the table, kShared marks an id that several processes used (see shared_).
  static constexpr trace::Index kShared = -2;

  bool inTable(std::uint64_t correlation_id) const {
    return correlation_id >= first_id_ && correlation_id - first_id_ < table_.size();
  }
  void addToTable(const Entry& entry);
  trace::Index findShared(std::int64_t pid, std::uint64_t correlation_id) const;

  std::int64_t pidOf(trace::Index launch) const;

  const trace::Trace& trace_;
  // Correlation ids come from a counter (which API calls not recorded advance too): a table of the
  // launch of each id, indexed from the smallest, holds them without sorting or searching. It is
  // left empty where the ids are too sparse for one.
  std::uint64_t first_id_ = 0;
  std::vector<trace::Index> table_;
  // The ids the table does not answer for (all of them without a table), each process's earliest
  // launch first: sorted by (correlation id, process, launch).
  std::vector<Entry> shared_;
};

}  // namespace ampscope::analyzer
