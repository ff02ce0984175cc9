#include "analyzer/correlate/launch_lookup.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

using trace::kNone;
using trace::kUnknownPid;

// Launches with the given correlation ids, each on a thread of the given process.
trace::Trace launches(const std::vector<std::pair<std::uint64_t, std::int64_t>>& id_and_pid) {
  trace::Trace trace;
  for (const auto& [id, pid] : id_and_pid) {
    trace::LaunchCall call;
    call.correlation_id = id;
    call.thread = trace.threadIndex(pid, pid);
    trace.launches.push_back(call);
  }
  return trace;
}

TEST(LaunchLookup, FindsTheEarliestLaunchOfTheProcessWithTheId) {
  const trace::Trace trace = launches({{10, 1}, {11, 1}, {11, 1}, {13, 1}});
  const LaunchLookup lookup(trace);
  EXPECT_EQ(lookup.find(1, 10), 0);
  EXPECT_EQ(lookup.find(1, 11), 1);
  EXPECT_EQ(lookup.find(1, 13), 3);
  EXPECT_EQ(lookup.find(1, 12), kNone);
  EXPECT_EQ(lookup.find(1, 9), kNone);
  EXPECT_EQ(lookup.find(1, 14), kNone);
  EXPECT_EQ(lookup.find(2, 10), kNone);          // another process's id
  EXPECT_EQ(lookup.find(kUnknownPid, 11), 1);   // one process used it
}

TEST(LaunchLookup, AnIdOfSeveralProcessesLinksByProcessAndNotWithoutOne) {
  const trace::Trace trace = launches({{5, 2}, {5, 1}, {6, 1}, {5, 2}, {5, 3}});
  const LaunchLookup lookup(trace);
  EXPECT_EQ(lookup.find(2, 5), 0);
  EXPECT_EQ(lookup.find(1, 5), 1);
  EXPECT_EQ(lookup.find(3, 5), 4);
  EXPECT_EQ(lookup.find(4, 5), kNone);
  EXPECT_EQ(lookup.find(kUnknownPid, 5), kNone);
  EXPECT_EQ(lookup.find(kUnknownPid, 6), 2);
}

TEST(LaunchLookup, SparseIdsAreFoundAsWell) {
  // Ids far apart: no table, every id looked up among the sorted ones.
  const trace::Trace trace = launches({{1, 1}, {1ull << 40, 1}, {1ull << 40, 2}, {1ull << 50, 1}});
  const LaunchLookup lookup(trace);
  EXPECT_EQ(lookup.find(1, 1), 0);
  EXPECT_EQ(lookup.find(2, 1ull << 40), 2);
  EXPECT_EQ(lookup.find(kUnknownPid, 1ull << 40), kNone);
  EXPECT_EQ(lookup.find(kUnknownPid, 1ull << 50), 3);
  EXPECT_EQ(lookup.find(1, 2), kNone);
}

TEST(LaunchLookup, NoLaunchesFindNothing) {
  const trace::Trace trace;
  const LaunchLookup lookup(trace);
  EXPECT_EQ(lookup.find(1, 0), kNone);
  EXPECT_EQ(lookup.find(kUnknownPid, 7), kNone);
}

}  // namespace
}  // namespace ampscope::analyzer
