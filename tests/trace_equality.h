#pragma once
// Compares two traces event by event, strings by value, for round-trip tests.

#include <gtest/gtest.h>

#include "trace/trace_model.h"

namespace ampscope::test {

inline void expectSameStrings(const trace::Trace& a, const trace::Trace& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (trace::StringId id = 0; id < a.strings.size(); ++id) {
    ASSERT_EQ(a.str(id), b.str(id)) << "string id " << id;
  }
}

template <typename Event>
void expectSameEvents(const std::vector<Event>& a, const std::vector<Event>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i] == b[i]) << what << " #" << i << " differs";
  }
}

inline void expectSameTrace(const trace::Trace& a, const trace::Trace& b) {
  expectSameStrings(a, b);
  expectSameEvents(a.devices, b.devices, "devices");
  expectSameEvents(a.threads, b.threads, "threads");
  expectSameEvents(a.launches, b.launches, "launches");
  expectSameEvents(a.kernels, b.kernels, "kernels");
  expectSameEvents(a.memory_ops, b.memory_ops, "memory ops");
  expectSameEvents(a.synchronizations, b.synchronizations, "synchronizations");
  expectSameEvents(a.ranges, b.ranges, "ranges");
  expectSameEvents(a.counters, b.counters, "counters");
  expectSameEvents(a.memory_events, b.memory_events, "memory events");
  expectSameEvents(a.kernel_metrics, b.kernel_metrics, "kernel metrics");
  expectSameEvents(a.metric_samples, b.metric_samples, "metric samples");
  expectSameEvents(a.gradient_bins, b.gradient_bins, "gradient bins");
  EXPECT_TRUE(a.import_stats == b.import_stats);
  EXPECT_EQ(a.source_format, b.source_format);
  EXPECT_EQ(a.format_detail, b.format_detail);
  EXPECT_TRUE(a.distributed == b.distributed) << "rank " << a.distributed.rank << " of " << a.distributed.world_size
                                              << " against rank " << b.distributed.rank << " of " << b.distributed.world_size;
}

}  // namespace ampscope::test
